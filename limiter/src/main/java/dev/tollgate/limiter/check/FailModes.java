package dev.tollgate.limiter.check;

import dev.tollgate.common.check.EntryResult;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.limiter.Outcome;
import dev.tollgate.limiter.breaker.FallbackBuckets;
import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.store.StoreException;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;

/**
 * The one place that decides what a rule answers when its counter shard cannot be reached in time
 * (requirement #4). A fail-open rule keeps the API serving: the pod's fallback bucket answers, at the
 * design's limit ÷ pods × 2, and every such answer counts {@code fail_open}. A fail-closed rule (login)
 * denies the whole check ({@link Outcome.FailedClosed}): {@code store_timeout} when this call timed out or the
 * check's deadline passed, {@code store_unavailable} when the breaker is open or the node refused. A shadow
 * rule never changes a verdict, not even here.
 */
final class FailModes {

    private static final String FAIL_OPEN = "fail_open";

    private final FallbackBuckets fallback;
    private final IntSupplier livePods;
    private final LimiterMetrics metrics;

    FailModes(FallbackBuckets fallback, IntSupplier livePods, LimiterMetrics metrics) {
        this.fallback = fallback;
        this.livePods = livePods;
        this.metrics = metrics;
    }

    GroupAnswer answer(KeyGroup group, StoreException error) {
        if (!group.shadow() && failsClosed(group)) {
            List<Integer> entries = new ArrayList<>();
            List<String> rules = new ArrayList<>();
            for (int i = 0; i < group.size(); i++) {
                Rule rule = group.rule(i);
                if (rule.failsClosed()) {
                    metrics.failedClosed(rule.id(), error.kind());
                    for (int entry : group.entryIndexes(i)) {
                        entries.add(entry);
                        rules.add(rule.id());
                    }
                }
            }
            Outcome.FailedClosed.Cause cause = error.kind() == StoreException.Kind.TIMEOUT
                    ? Outcome.FailedClosed.Cause.TIMEOUT : Outcome.FailedClosed.Cause.UNAVAILABLE;
            return new GroupAnswer.Closed(new Outcome.FailedClosed(cause, error.reason(), entries, rules));
        }
        FallbackBuckets.Answer answer = fallback.spend(group.key(), group.spends(), livePods.getAsInt());
        for (int i = 0; i < group.size(); i++) {
            metrics.failedOpen(group.rule(i).id());
        }
        return GroupAnswer.of(group, i -> (answer.allowed()
                ? EntryResult.allowed(group.rule(i).id(), answer.remaining()[i], 0)
                : EntryResult.denied(group.rule(i).id(), 0, answer.retryMs(), answer.retryMs())).withFallback(FAIL_OPEN),
                answer.allowed() ? Spent.IN_FALLBACK : Spent.NOTHING);
    }

    /** Gives the group's fallback buckets back the request they admitted. */
    void giveBack(KeyGroup group) {
        fallback.giveBack(group.key(), group.spends());
    }

    /** Whether a rule of the group fails closed (a shadow group's included: callers say whether shadow matters). */
    static boolean failsClosed(KeyGroup group) {
        for (int i = 0; i < group.size(); i++) {
            if (group.rule(i).failsClosed()) {
                return true;
            }
        }
        return false;
    }
}
