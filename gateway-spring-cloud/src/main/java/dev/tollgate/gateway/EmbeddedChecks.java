package dev.tollgate.gateway;

import dev.tollgate.client.FailMode;
import dev.tollgate.common.check.CheckProblem;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.common.check.ProblemCodes;
import dev.tollgate.limiter.Limiter;
import dev.tollgate.limiter.Outcome;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

import java.util.List;
import java.util.Map;

/**
 * Checks by the engine in the gateway's process: no network hop to check-service, the same scripts on the same
 * Redis Cluster, so an embedded gateway and check-service pods enforce one limit together. The engine answers every
 * check within its own deadline and applies each rule's fail mode itself; what is left to decide here is what
 * check-service would answer as a problem: a fail-closed rule whose shard cannot be reached is a deny, and an engine
 * without rules yet, or a check it refuses, gets the gateway's fail mode.
 */
final class EmbeddedChecks implements Checks {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedChecks.class);

    private final Limiter limiter;
    private final FailMode failMode;

    EmbeddedChecks(Limiter limiter, FailMode failMode) {
        this.limiter = limiter;
        this.failMode = failMode;
    }

    @Override
    public Mono<LimitAnswer> check(CheckRequest request) {
        return Mono.fromFuture(() -> limiter.check(request)).flatMap(outcome -> outcome.match(new Outcome.Cases<>() {
            @Override
            public Mono<LimitAnswer> answered(CheckResponse response) {
                return Mono.just(new LimitAnswer(response.allowed(), response.headers(), null));
            }

            /** The rule fails closed: check-service would answer 503/504, which the client turns into a deny. */
            @Override
            public Mono<LimitAnswer> failedClosed(Outcome.FailedClosed failure) {
                return Mono.just(new LimitAnswer(false, Map.of("Retry-After", "1"), "closed_rule_unavailable: " + failure.cause().code()));
            }

            @Override
            public Mono<LimitAnswer> noRules() {
                return byFailMode(request, ProblemCodes.RULES_UNAVAILABLE, "the engine holds no rules yet");
            }

            /** A mistake in the gateway's configuration (a cost above a rule's max_cost): not the caller's to pay for with a 500. */
            @Override
            public Mono<LimitAnswer> invalid(List<CheckProblem> problems) {
                return byFailMode(request, ProblemCodes.INVALID_REQUEST, problems.get(0).describe());
            }
        }));
    }

    private Mono<LimitAnswer> byFailMode(CheckRequest request, String code, String why) {
        log.warn("the embedded engine could not check domain {}: {} (answered by the fail mode {})", request.domain(), why, failMode);
        if (failMode == FailMode.ERROR) {
            return Mono.error(new IllegalStateException("the embedded engine could not check domain " + request.domain() + " ("
                    + code + ": " + why + ") and the fail mode is ERROR"));
        }
        return Mono.just(new LimitAnswer(failMode == FailMode.ALLOW, Map.of(), code));
    }
}
