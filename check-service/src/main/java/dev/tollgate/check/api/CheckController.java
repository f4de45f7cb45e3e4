package dev.tollgate.check.api;

import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.limiter.Limiter;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * {@code POST /v1/ratelimit:check}. Answers 200 for both verdicts, as Envoy's service answers OK with
 * OVER_LIMIT: a deny is the normal outcome of a check, not an error of the call.
 */
@RestController
class CheckController {

    private final Limiter limiter;

    CheckController(Limiter limiter) {
        this.limiter = limiter;
    }

    @PostMapping(path = "/v1/ratelimit:check", consumes = MediaType.APPLICATION_JSON_VALUE, produces = MediaType.APPLICATION_JSON_VALUE)
    Mono<CheckResponse> check(@RequestBody CheckRequest request) {
        return Mono.fromFuture(() -> limiter.check(request));
    }
}
