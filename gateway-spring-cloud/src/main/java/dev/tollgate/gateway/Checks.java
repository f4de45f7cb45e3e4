package dev.tollgate.gateway;

import dev.tollgate.common.check.CheckRequest;
import reactor.core.publisher.Mono;

/**
 * Where the limiter's checks go: to check-service through tollgate-client ({@link ClientChecks}), or to the engine in
 * the gateway's own process ({@link EmbeddedChecks}). Completes with an answer within its deadline, never with an
 * error for a failure of Tollgate: each implementation answers those by its fail mode.
 */
public interface Checks {

    Mono<LimitAnswer> check(CheckRequest request);
}
