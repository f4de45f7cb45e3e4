package dev.tollgate.limiter;

import dev.tollgate.common.check.EntryResult;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.limiter.breaker.FallbackBuckets;
import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.limiter.store.StoreException;

import java.util.function.IntSupplier;

/**
 * The one place that decides what a rule answers when its counter shard cannot be reached
 * (requirement #4). A fail-open rule keeps the API serving: the pod's fallback bucket answers, at the
 * design's limit ÷ pods × 2, and every such answer counts {@code fail_open}. A fail-closed rule (login)
 * fails the whole check with the store's error, which check-service answers as 504
 * {@code store_timeout} (this call timed out) or 503 {@code store_unavailable} (breaker open, node
 * refused). A shadow rule never changes a verdict, not even here.
 */
final class FailModes {

    static final String FAIL_OPEN = "fail_open";

    private final FallbackBuckets fallback;
    private final IntSupplier livePods;
    private final LimiterMetrics metrics;

    FailModes(FallbackBuckets fallback, IntSupplier livePods, LimiterMetrics metrics) {
        this.fallback = fallback;
        this.livePods = livePods;
        this.metrics = metrics;
    }

    void answer(KeyGroup group, String shard, StoreException error, EntryResult[] results) {
        if (!group.shadow()) {
            for (int i = 0; i < group.size(); i++) {
                Rule rule = group.rule(i);
                if (rule.failsClosed()) {
                    metrics.failedClosed(rule.id(), error.kind());
                    throw error;
                }
            }
        }
        FallbackBuckets.Answer answer = fallback.spend(shard, group.key(), group.spends(), livePods.getAsInt());
        for (int i = 0; i < group.size(); i++) {
            String ruleId = group.rule(i).id();
            EntryResult result = answer.allowed()
                    ? EntryResult.allowed(ruleId, answer.remaining()[i], 0)
                    : EntryResult.denied(ruleId, 0, answer.retryMs(), answer.retryMs());
            result = result.withFallback(FAIL_OPEN);
            if (group.shadow()) {
                result = result.asShadow();
            }
            metrics.failedOpen(ruleId);
            for (int entry : group.entryIndexes(i)) {
                results[entry] = result;
            }
        }
    }
}
