package dev.tollgate.gateway.key;

import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.support.ipresolver.RemoteAddressResolver;
import org.springframework.cloud.gateway.support.ipresolver.XForwardedRemoteAddressResolver;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

import java.net.InetSocketAddress;

/**
 * The caller's IP address (login limits per IP). Behind load balancers that append to {@code X-Forwarded-For}, give
 * how many of them there are: the address that many hops from the right is the first one the gateway's own
 * infrastructure wrote, and anything left of it is the caller's to forge. With 0 the socket's peer is used.
 */
public final class IpKeyResolver implements KeyResolver {

    private final RemoteAddressResolver addresses;

    public IpKeyResolver(int trustedProxies) {
        if (trustedProxies < 0) {
            throw new IllegalArgumentException("trusted proxies must be 0 or more, was " + trustedProxies);
        }
        this.addresses = trustedProxies == 0 ? new RemoteAddressResolver() { }
                : XForwardedRemoteAddressResolver.maxTrustedIndex(trustedProxies);
    }

    @Override
    public Mono<String> resolve(ServerWebExchange exchange) {
        InetSocketAddress address = addresses.resolve(exchange);
        if (address == null || address.getAddress() == null) {
            return Mono.empty();
        }
        return Keys.acceptable(address.getAddress().getHostAddress());
    }
}
