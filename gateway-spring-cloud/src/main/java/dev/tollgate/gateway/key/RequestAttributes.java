package dev.tollgate.gateway.key;

import org.springframework.cloud.gateway.route.Route;
import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.net.URI;
import java.security.Principal;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * What a request is, for a check by attributes: each attribute read from the exchange by its {@link AttributeSource}.
 * An attribute the request lacks, or whose value check-service would refuse (an identity that is not an acceptable
 * key, a plan or route over 256 characters or with control characters), is left out. Read once per exchange: the
 * first reader (the key resolver, which sees the exchange as the route's earlier filters left it) keeps the result on
 * the exchange for the limiter.
 */
public final class RequestAttributes {

    /** The exchange attribute that holds a request's attributes once read. */
    public static final String EXCHANGE_ATTRIBUTE = RequestAttributes.class.getName();

    private final ClientAddress address;

    public RequestAttributes(int trustedProxies) {
        this.address = new ClientAddress(trustedProxies);
    }

    /** The attributes {@code sources} name, in their order; missing and refused values left out. */
    public Mono<Map<String, String>> of(ServerWebExchange exchange, Map<String, AttributeSource> sources) {
        Map<String, String> read = exchange.getAttribute(EXCHANGE_ATTRIBUTE);
        if (read != null) {
            return Mono.just(read);
        }
        return Flux.fromIterable(sources.entrySet())
                .concatMap(source -> value(exchange, source.getValue())
                        .filter(value -> Keys.isAcceptable(source.getKey(), value))
                        .map(value -> Map.entry(source.getKey(), value)))
                .collect(LinkedHashMap<String, String>::new, (attributes, attribute) -> attributes.put(attribute.getKey(), attribute.getValue()))
                .map(attributes -> {
                    Map<String, String> result = Collections.unmodifiableMap(attributes);
                    exchange.getAttributes().put(EXCHANGE_ATTRIBUTE, result);
                    return result;
                });
    }

    private Mono<String> value(ServerWebExchange exchange, AttributeSource source) {
        switch (source.kind()) {
            case HEADER:
                return Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst(source.name()));
            case CLAIM:
                return VerifiedClaims.claim(exchange, source.name());
            case ROUTE_ID:
                Route route = exchange.getAttribute(ServerWebExchangeUtils.GATEWAY_ROUTE_ATTR);
                return route == null ? Mono.empty() : Mono.just(route.getId());
            case PATH:
                return Mono.just(callersPath(exchange));
            case REMOTE_ADDRESS:
                return Mono.justOrEmpty(address.of(exchange));
            case PRINCIPAL:
                return exchange.getPrincipal().map(Principal::getName);
            default:
                throw new IllegalStateException("no reader for " + source);
        }
    }

    /**
     * The path the caller asked for: a route's StripPrefix or RewritePath before the limiter changes the request's path,
     * but the rules name the API's public routes. Spring Cloud Gateway keeps the URLs before each rewrite, first the
     * caller's.
     */
    private static String callersPath(ServerWebExchange exchange) {
        Set<URI> originals = exchange.getAttribute(ServerWebExchangeUtils.GATEWAY_ORIGINAL_REQUEST_URL_ATTR);
        if (originals != null && !originals.isEmpty()) {
            String path = originals.iterator().next().getRawPath();
            if (path != null) {
                return path;
            }
        }
        return exchange.getRequest().getPath().value();
    }
}
