package dev.tollgate.gateway;

import dev.tollgate.client.FailMode;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.check.InvalidCheckRequestException;
import dev.tollgate.limiter.Limiter;
import dev.tollgate.limiter.RulesNotLoadedException;
import dev.tollgate.store.StoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

import java.util.Map;
import java.util.concurrent.CompletionException;

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
        return Mono.fromFuture(() -> limiter.check(request))
                .map(response -> new LimitAnswer(response.allowed(), response.headers(), null))
                .onErrorResume(failure -> {
                    Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
                    if (cause instanceof StoreException store) {
                        // the rule fails closed: check-service would answer 503/504, which the client turns into a deny
                        return Mono.just(new LimitAnswer(false, Map.of("Retry-After", "1"), "closed_rule_unavailable: " + store.kind()));
                    }
                    if (cause instanceof RulesNotLoadedException || cause instanceof InvalidCheckRequestException) {
                        log.warn("the embedded engine could not check domain {}: {} (answered by the fail mode {})",
                                request.domain(), cause.getMessage(), failMode);
                        if (failMode == FailMode.ERROR) {
                            return Mono.error(cause);
                        }
                        return Mono.just(new LimitAnswer(failMode == FailMode.ALLOW, Map.of(), cause.getClass().getSimpleName()));
                    }
                    return Mono.error(cause);
                });
    }
}
