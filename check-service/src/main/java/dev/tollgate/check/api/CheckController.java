package dev.tollgate.check.api;

import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.limiter.Limiter;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

import java.util.concurrent.CompletableFuture;

/**
 * {@code POST /v1/ratelimit:check}. Answers 200 for both verdicts, as Envoy's service answers OK with
 * OVER_LIMIT: a deny is the normal outcome of a check, not an error of the call. The RateLimit headers
 * the gateway should forward come both as headers of this answer and in its body.
 *
 * <p>The engine's work is one observation ({@code tollgate.check}, a span under the HTTP request's when
 * tracing is on), current while the engine sends its store calls, so each Redis command's span (Lettuce's
 * tracing) hangs under it.
 */
@RestController
class CheckController {

    private final Limiter limiter;
    private final ObservationRegistry observations;

    CheckController(Limiter limiter, ObservationRegistry observations) {
        this.limiter = limiter;
        this.observations = observations;
    }

    @PostMapping(path = "/v1/ratelimit:check", consumes = MediaType.APPLICATION_JSON_VALUE, produces = MediaType.APPLICATION_JSON_VALUE)
    Mono<ResponseEntity<CheckResponse>> check(@RequestBody CheckRequest request) {
        return Mono.deferContextual(context -> {
            Observation observation = Observation.createNotStarted("tollgate.check", observations)
                    .contextualName("limiter check")
                    .parentObservation(context.getOrDefault(ObservationThreadLocalAccessor.KEY, null))
                    .start();
            CompletableFuture<CheckResponse> answer;
            try (Observation.Scope scope = observation.openScope()) {
                answer = limiter.check(request);
            } catch (RuntimeException e) {
                observation.error(e);
                observation.stop();
                throw e;
            }
            return Mono.fromFuture(answer)
                    .doOnError(observation::error)
                    .doFinally(signal -> observation.stop())
                    .map(response -> {
                        ResponseEntity.BodyBuilder ok = ResponseEntity.ok();
                        response.headers().forEach((name, value) -> ok.header(name, value));
                        return ok.body(response);
                    });
        });
    }
}
