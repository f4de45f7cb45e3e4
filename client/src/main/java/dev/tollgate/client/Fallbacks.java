package dev.tollgate.client;

import dev.tollgate.common.check.Verdict;
import reactor.core.publisher.Mono;

import java.net.URI;

/**
 * The one place where the client decides what a failed call answers. Tollgate unreachable, late, or failing with a
 * server error: the client's {@link FailMode}. A fail-closed rule whose shard Tollgate cannot reach (503
 * {@code store_unavailable}, 504 {@code store_timeout}): deny even under {@link FailMode#ALLOW}, because the rule
 * itself chose to fail closed (a login limit must not open because the gateway's client is lenient). A refused
 * request (4xx) is never answered from here: it is the caller's bug and fails the call.
 */
final class Fallbacks {

    private final FailMode failMode;

    Fallbacks(FailMode failMode) {
        this.failMode = failMode;
    }

    Mono<CheckResult> answer(ClientFallback why, Throwable cause, URI pod) {
        if (failMode == FailMode.ERROR) {
            return Mono.error(new TollgateUnavailableException(why, cause));
        }
        Verdict verdict = why.reason() == ClientFallback.Reason.CLOSED_RULE_UNAVAILABLE || failMode == FailMode.DENY
                ? Verdict.DENY : Verdict.ALLOW;
        return Mono.just(CheckResult.fallback(verdict, why, pod));
    }
}
