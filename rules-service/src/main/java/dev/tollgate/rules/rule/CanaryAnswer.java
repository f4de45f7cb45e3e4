package dev.tollgate.rules.rule;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.tollgate.common.rule.CountAfterBound;
import dev.tollgate.common.rule.RuleFields;

import java.time.Duration;
import java.time.Instant;

/**
 * A rule's canary as the rules API answers it ({@code GET /v1/rules/{id}/canary}): its fields as a rule's, at the
 * canary's version (its ETag, what a promote or rollback names in {@code If-Match}), the rule's version it replaces
 * on the canary pods, and when it was written.
 */
record CanaryAnswer(@JsonUnwrapped RuleFields rule, CountAfterBound countAfter, long baseVersion, Instant writtenAt) {

    static CanaryAnswer of(RuleCanary canary, Duration flushInterval) {
        RuleAnswer answer = RuleAnswer.of(canary.rule(), flushInterval);
        return new CanaryAnswer(answer.rule(), answer.countAfter(), canary.baseVersion(), canary.writtenAt());
    }
}
