package dev.tollgate.limiter;

import dev.tollgate.common.check.EntryResult;
import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.limiter.store.StoreException;

/**
 * The one place that decides what a rule answers when its counter shard cannot be reached
 * (requirement #4): a fail-open rule admits the request and counts {@code fail_open}, so an outage of
 * the limiter never becomes an outage of the API; a fail-closed rule (login) fails the whole check
 * with the store's error, which check-service answers as 504 {@code store_timeout} or 503
 * {@code store_unavailable}. A shadow rule never changes a verdict, not even here.
 */
final class FailModes {

    static final String FAIL_OPEN = "fail_open";

    private final LimiterMetrics metrics;

    FailModes(LimiterMetrics metrics) {
        this.metrics = metrics;
    }

    void answer(KeyGroup group, StoreException error, EntryResult[] results) {
        for (int i = 0; i < group.size(); i++) {
            var rule = group.rule(i);
            if (rule.failsClosed() && !group.shadow()) {
                metrics.failedClosed(rule.id(), error.kind());
                throw error;
            }
        }
        for (int i = 0; i < group.size(); i++) {
            var rule = group.rule(i);
            metrics.failedOpen(rule.id());
            EntryResult result = EntryResult.allowed(rule.id(), 0, 0).withFallback(FAIL_OPEN);
            if (group.shadow()) {
                result = result.asShadow();
            }
            for (int entry : group.entryIndexes(i)) {
                results[entry] = result;
            }
        }
    }
}
