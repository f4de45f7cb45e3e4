package dev.tollgate.gateway;

import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.util.context.Context;
import reactor.core.publisher.Mono;

/**
 * The request's exchange into the Reactor context, where {@link TollgateRateLimiter} finds it for a check by
 * attributes: Spring Cloud Gateway hands a {@code RateLimiter} only the route id and the key. Last of the web
 * filters, so the exchange is the one Spring Security's filters decorated (its principal is the authenticated one).
 */
final class ExchangeInContext implements WebFilter, Ordered {

    static final String KEY = "tollgate.exchange";

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        return chain.filter(exchange).contextWrite(Context.of(KEY, exchange));
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
