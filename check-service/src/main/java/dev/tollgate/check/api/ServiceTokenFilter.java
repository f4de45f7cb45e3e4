package dev.tollgate.check.api;

import dev.tollgate.check.access.ReaderTokens;
import dev.tollgate.check.access.ServiceTokens;
import dev.tollgate.common.check.ProblemCodes;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.server.PathContainer;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

import java.util.ArrayList;
import java.util.List;

/**
 * Every path but the actuator's answers 401 {@code unauthorized} without an accepted service token, when
 * tokens are configured; health and metrics stay open (health details only for authorized callers, as
 * configured). The readers' paths ({@link ReaderAccess#PATHS}: explain, the hot keys) take a reader's token here
 * instead, and their handlers check it again. Runs first, before anything reads the body.
 *
 * <p>Open or guarded is decided on the path as WebFlux's router matches it, each segment decoded and its
 * {@code ;parameters} cut off, and by default guarded: a prefix test on the raw path let
 * {@code /v1;x/ratelimit:check} and {@code /%761/ratelimit:check} reach the check with no token, since the
 * router reads both as {@code /v1/ratelimit:check}.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE)
class ServiceTokenFilter implements WebFilter {

    private final ServiceTokens tokens;
    private final ReaderTokens readers;
    private final byte[] refusal;
    /** The actuator's base path, as the segments the router matches. */
    private final List<String> open;

    ServiceTokenFilter(ServiceTokens tokens, ReaderTokens readers, JsonMapper json,
                       @Value("${management.endpoints.web.base-path:/actuator}") String actuatorBasePath) {
        this.tokens = tokens;
        this.readers = readers;
        this.open = segments(PathContainer.parsePath(actuatorBasePath));
        if (open.isEmpty() && tokens.required()) {
            // the actuator at the root would open every path: guard all of them instead
            throw new IllegalArgumentException("management.endpoints.web.base-path must not be / when tollgate.access.tokens is used");
        }
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.UNAUTHORIZED,
                "The check API needs the gateways' service token: Authorization: Bearer <token>.");
        problem.setProperty("code", ProblemCodes.UNAUTHORIZED);
        this.refusal = json.writeValueAsBytes(problem);
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        PathContainer path = exchange.getRequest().getPath().pathWithinApplication();
        String authorization = exchange.getRequest().getHeaders().getFirst(HttpHeaders.AUTHORIZATION);
        // a reader's token passes to the readers' paths, whose handlers check it again: a spelling of their path this
        // test misses meets the service token's check here, and the reader's there
        if (!tokens.required() || open(path) || tokens.accepts(authorization)
                || (ReaderAccess.PATHS.contains(segments(path)) && readers.accepts(authorization))) {
            return chain.filter(exchange);
        }
        ServerHttpResponse response = exchange.getResponse();
        response.setStatusCode(HttpStatus.UNAUTHORIZED);
        response.getHeaders().set(HttpHeaders.WWW_AUTHENTICATE, "Bearer");
        response.getHeaders().setContentType(MediaType.APPLICATION_PROBLEM_JSON);
        // nothing read the body: read it to its end first, as for any early answer (see RequestBodies)
        return RequestBodies.drain(exchange).then(Mono.defer(() -> response.writeWith(Mono.just(response.bufferFactory().wrap(refusal)))));
    }

    /** Whether the path, read as the router reads it, lies under the actuator's base path. */
    boolean open(PathContainer path) {
        int matched = 0;
        for (PathContainer.Element element : path.elements()) {
            if (matched == open.size()) {
                break;
            }
            if (element instanceof PathContainer.PathSegment segment && !segment.valueToMatch().equals(open.get(matched++))) {
                return false;
            }
        }
        return !open.isEmpty() && matched == open.size();
    }

    private static List<String> segments(PathContainer path) {
        List<String> segments = new ArrayList<>();
        for (PathContainer.Element element : path.elements()) {
            if (element instanceof PathContainer.PathSegment segment) {
                segments.add(segment.valueToMatch());
            }
        }
        return segments;
    }
}
