package dev.tollgate.gateway.key;

import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * The caller's IP address (login limits per IP). Behind load balancers that append to {@code X-Forwarded-For}, give
 * how many of them there are: the address that many hops from the right is the first one the gateway's own
 * infrastructure wrote, and anything left of it is the caller's to forge. With 0 the socket's peer is used.
 */
public final class IpKeyResolver implements KeyResolver {

    private final ClientAddress address;

    public IpKeyResolver(int trustedProxies) {
        this.address = new ClientAddress(trustedProxies);
    }

    @Override
    public Mono<String> resolve(ServerWebExchange exchange) {
        String ip = address.of(exchange);
        return ip == null ? Mono.empty() : Keys.acceptable(ip);
    }
}
