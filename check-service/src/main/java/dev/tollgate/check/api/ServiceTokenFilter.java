package dev.tollgate.check.api;

import dev.tollgate.check.access.ServiceTokens;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

/**
 * The check API ({@code /v1/**}) answers 401 {@code unauthorized} without an accepted service token, when
 * tokens are configured; health and metrics stay open (health details only for authorized callers, as
 * configured). Runs first, before anything reads the body.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE)
class ServiceTokenFilter implements WebFilter {

    private final ServiceTokens tokens;
    private final byte[] refusal;

    ServiceTokenFilter(ServiceTokens tokens, JsonMapper json) {
        this.tokens = tokens;
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.UNAUTHORIZED,
                "The check API needs the gateways' service token: Authorization: Bearer <token>.");
        problem.setProperty("code", ProblemCodes.UNAUTHORIZED);
        this.refusal = json.writeValueAsBytes(problem);
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        if (!tokens.required() || !exchange.getRequest().getPath().value().startsWith("/v1/")
                || tokens.accepts(exchange.getRequest().getHeaders().getFirst(HttpHeaders.AUTHORIZATION))) {
            return chain.filter(exchange);
        }
        ServerHttpResponse response = exchange.getResponse();
        response.setStatusCode(HttpStatus.UNAUTHORIZED);
        response.getHeaders().set(HttpHeaders.WWW_AUTHENTICATE, "Bearer");
        response.getHeaders().setContentType(MediaType.APPLICATION_PROBLEM_JSON);
        // nothing read the body: read it to its end first, as for any early answer (see RequestBodies)
        return RequestBodies.drain(exchange).then(Mono.defer(() -> response.writeWith(Mono.just(response.bufferFactory().wrap(refusal)))));
    }
}
