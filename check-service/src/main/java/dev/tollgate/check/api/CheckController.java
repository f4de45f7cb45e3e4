package dev.tollgate.check.api;

import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.limiter.Limiter;
import dev.tollgate.limiter.Outcome;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
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

    /**
     * The verdict's headers go straight onto the response: a {@code ResponseEntity} would copy them through
     * a map of its own on every check. With tracing off the observation is a no-op and the answer skips
     * the operators that only serve it.
     */
    @PostMapping(path = "/v1/ratelimit:check", consumes = MediaType.APPLICATION_JSON_VALUE, produces = MediaType.APPLICATION_JSON_VALUE)
    Mono<CheckResponse> check(@RequestBody CheckRequest request, ServerHttpResponse http) {
        return Mono.deferContextual(context -> {
            Observation observation = Observation.createNotStarted("tollgate.check", observations)
                    .contextualName("limiter check")
                    .parentObservation(context.getOrDefault(ObservationThreadLocalAccessor.KEY, null))
                    .start();
            if (observation.isNoop()) {
                return Mono.fromFuture(limiter.check(request)).flatMap(outcome -> answer(outcome, http));
            }
            CompletableFuture<Outcome> answer;
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
                    .flatMap(outcome -> answer(outcome, http));
        });
    }

    /** The verdict with its headers, or the outcome's problem for {@link ProblemHandler} to write. */
    private static Mono<CheckResponse> answer(Outcome outcome, ServerHttpResponse http) {
        return CheckProblems.answer(outcome, response -> {
            HttpHeaders headers = http.getHeaders();
            response.headers().forEach(headers::set);
            return Mono.just(response);
        }, problem -> Mono.error(new ProblemAnswer(problem)));
    }
}
