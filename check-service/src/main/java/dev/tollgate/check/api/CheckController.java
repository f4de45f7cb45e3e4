package dev.tollgate.check.api;

import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.limiter.Limiter;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * {@code POST /v1/ratelimit:check}. Answers 200 for both verdicts, as Envoy's service answers OK with
 * OVER_LIMIT: a deny is the normal outcome of a check, not an error of the call. The RateLimit headers
 * the gateway should forward come both as headers of this answer and in its body.
 */
@RestController
class CheckController {

    private final Limiter limiter;

    CheckController(Limiter limiter) {
        this.limiter = limiter;
    }

    @PostMapping(path = "/v1/ratelimit:check", consumes = MediaType.APPLICATION_JSON_VALUE, produces = MediaType.APPLICATION_JSON_VALUE)
    Mono<ResponseEntity<CheckResponse>> check(@RequestBody CheckRequest request) {
        return Mono.fromFuture(() -> limiter.check(request)).map(response -> {
            ResponseEntity.BodyBuilder ok = ResponseEntity.ok();
            response.headers().forEach((name, value) -> ok.header(name, value));
            return ok.body(response);
        });
    }
}
