package dev.tollgate.gateway.key;

import dev.tollgate.common.check.Attributes;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.route.Route;
import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * For a route whose limiter checks by attributes: reads the attributes the route's limiter names
 * ({@link RequestAttributes}) and resolves to the request's identity, its {@code api_key}, else {@code user}, else
 * {@code ip}. A request that lacks any attribute its route reads, or has one check-service would refuse, resolves to
 * nothing, which the filter answers by its {@code deny-empty-key} (403): a check without the identity its rules are
 * keyed by could only be refused, and the gateway's fail mode would then let it pass unlimited.
 */
public final class AttributesKeyResolver implements KeyResolver {

    private static final List<String> IDENTITIES = List.of(Attributes.API_KEY, Attributes.USER, Attributes.IP);

    private final Function<String, Map<String, AttributeSource>> sourcesOfRoute;
    private final RequestAttributes attributes;

    /** @param sourcesOfRoute a route id to the attributes its limiter reads; empty when it names rules instead */
    public AttributesKeyResolver(Function<String, Map<String, AttributeSource>> sourcesOfRoute, RequestAttributes attributes) {
        this.sourcesOfRoute = sourcesOfRoute;
        this.attributes = attributes;
    }

    @Override
    public Mono<String> resolve(ServerWebExchange exchange) {
        Route route = exchange.getAttribute(ServerWebExchangeUtils.GATEWAY_ROUTE_ATTR);
        String routeId = route == null ? null : route.getId();
        Map<String, AttributeSource> sources = sourcesOfRoute.apply(routeId);
        if (sources.isEmpty()) {
            return Mono.error(new IllegalStateException("route " + routeId + " resolves its key by attributes but its Tollgate limiter reads "
                    + "none: give it tollgate-rate-limiter.attributes.* (or use another key resolver for a route that names its rules)"));
        }
        return attributes.of(exchange, sources).flatMap(read -> {
            if (!read.keySet().containsAll(sources.keySet())) {
                return Mono.empty();
            }
            for (String identity : IDENTITIES) {
                String key = read.get(identity);
                if (key != null) {
                    return Mono.just(key);
                }
            }
            return Mono.empty();
        });
    }
}
