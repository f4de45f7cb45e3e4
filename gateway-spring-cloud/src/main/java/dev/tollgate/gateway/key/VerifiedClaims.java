package dev.tollgate.gateway.key;

import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * A claim of the JWT Spring Security has verified (signature, expiry, issuer as the application configured them):
 * the principal of an authenticated {@link JwtAuthenticationToken}. Never the {@code Authorization} header's payload
 * itself, whose claims anyone can write. Loaded only where a route reads a claim, which {@link AttributeSource#parse}
 * allows only with Spring Security's resource server on the class path.
 */
final class VerifiedClaims {

    private VerifiedClaims() {
    }

    static Mono<String> claim(ServerWebExchange exchange, String name) {
        return exchange.getPrincipal()
                .filter(principal -> principal instanceof JwtAuthenticationToken && ((JwtAuthenticationToken) principal).isAuthenticated())
                .mapNotNull(principal -> text(((JwtAuthenticationToken) principal).getTokenAttributes().get(name)));
    }

    /** A string, number or boolean claim as text; a list or an object is not one attribute. */
    private static String text(Object claim) {
        if (claim instanceof String || claim instanceof Number || claim instanceof Boolean) {
            return claim.toString();
        }
        return null;
    }
}
