package dev.tollgate.gateway.key;

import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

import java.security.Principal;

/**
 * The account (merchant) a request is for: the header the gateway's authentication puts on it (default
 * {@code X-Account-Id}), else the authenticated principal's name. Trust the header only where the gateway itself sets
 * it (strip it from incoming requests first), or any caller can spend another account's limit.
 */
public final class AccountKeyResolver implements KeyResolver {

    private final String header;

    public AccountKeyResolver(String header) {
        this.header = header;
    }

    @Override
    public Mono<String> resolve(ServerWebExchange exchange) {
        String account = exchange.getRequest().getHeaders().getFirst(header);
        if (account != null) {
            return Keys.acceptable(account);
        }
        return exchange.getPrincipal().map(Principal::getName).flatMap(Keys::acceptable);
    }
}
