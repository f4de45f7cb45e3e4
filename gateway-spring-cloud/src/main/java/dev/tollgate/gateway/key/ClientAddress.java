package dev.tollgate.gateway.key;

import org.springframework.cloud.gateway.support.ipresolver.RemoteAddressResolver;
import org.springframework.cloud.gateway.support.ipresolver.XForwardedRemoteAddressResolver;
import org.springframework.web.server.ServerWebExchange;

import java.net.InetSocketAddress;

/**
 * The caller's IP address. Behind load balancers that append to {@code X-Forwarded-For}, give how many of them there
 * are: the address that many hops from the right is the first one the gateway's own infrastructure wrote, and anything
 * left of it is the caller's to forge. With 0 the socket's peer is used.
 */
final class ClientAddress {

    private final RemoteAddressResolver addresses;

    ClientAddress(int trustedProxies) {
        if (trustedProxies < 0) {
            throw new IllegalArgumentException("trusted proxies must be 0 or more, was " + trustedProxies);
        }
        this.addresses = trustedProxies == 0 ? new RemoteAddressResolver() { }
                : XForwardedRemoteAddressResolver.maxTrustedIndex(trustedProxies);
    }

    /** The address as text, or null when the exchange has none (not a TCP peer). */
    String of(ServerWebExchange exchange) {
        InetSocketAddress address = addresses.resolve(exchange);
        return address == null || address.getAddress() == null ? null : address.getAddress().getHostAddress();
    }
}
