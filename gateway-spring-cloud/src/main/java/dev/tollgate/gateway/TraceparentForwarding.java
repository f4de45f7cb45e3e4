package dev.tollgate.gateway;

import dev.tollgate.client.TollgateClient;
import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

/**
 * The request's W3C {@code traceparent} into the Reactor context, where the client finds it
 * ({@link TollgateClient#TRACEPARENT}) and sends it on the check: a trace of the gateway's caller then shows
 * check-service's span under it. A web filter, not a gateway filter: Spring Cloud Gateway does not hand the exchange
 * to its {@code RateLimiter}. The client drops a value that is not a traceparent.
 */
final class TraceparentForwarding implements WebFilter, Ordered {

    static final String HEADER = "traceparent";

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        String traceparent = exchange.getRequest().getHeaders().getFirst(HEADER);
        if (traceparent == null) {
            return chain.filter(exchange);
        }
        return chain.filter(exchange).contextWrite(Context.of(TollgateClient.TRACEPARENT, traceparent));
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
