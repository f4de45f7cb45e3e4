package dev.tollgate.limiter.after;

import dev.tollgate.common.rule.CountAfterBound;

import java.time.Duration;

/**
 * How count-after rules are counted; the bound they keep is {@link CountAfterBound}'s, which the rules API shows.
 *
 * @param flushInterval   how often the pod sends its counts, one script call per shard (at most
 *                        {@code maxKeysPerCall} keys each); it sizes the overshoot bound: a pod admits a key on its
 *                        own at most {@code max(cost, ⌈rate × flushInterval⌉)} between two answers of its flushes,
 *                        and checks the key inline past that
 * @param maxPendingKeys  the (rule, key) counts a pod holds between flushes; when full, a key not already held is
 *                        checked inline (a store call, counted exactly), so memory stays bounded and nothing goes
 *                        uncounted
 * @param failClosedAfter how long a shard's flushes must have failed before its fail-closed count-after rules deny
 *                        (until then, and for fail-open rules always, the pod admits up to the per-flush allowance)
 * @param maxKeysPerCall  keys in one flush call, so a call stays well inside the store's command timeout
 */
public record CountAfterSettings(Duration flushInterval, int maxPendingKeys, Duration failClosedAfter, int maxKeysPerCall) {

    public static final Duration DEFAULT_FLUSH_INTERVAL = Duration.ofMillis(100);
    public static final int DEFAULT_MAX_PENDING_KEYS = 200_000;
    public static final int DEFAULT_MAX_KEYS_PER_CALL = 500;
    public static final CountAfterSettings DEFAULTS = of(DEFAULT_FLUSH_INTERVAL);

    public CountAfterSettings {
        if (flushInterval == null || flushInterval.toMillis() < 1 || flushInterval.compareTo(Duration.ofSeconds(10)) > 0) {
            throw new IllegalArgumentException("tollgate.count-after.flush-interval must be between 1 ms and 10 s, was " + flushInterval);
        }
        if (maxPendingKeys < 1) {
            throw new IllegalArgumentException("tollgate.count-after.max-pending-keys must be at least 1, was " + maxPendingKeys);
        }
        if (failClosedAfter == null || failClosedAfter.compareTo(flushInterval) < 0) {
            throw new IllegalArgumentException("count-after's fail-closed-after must be at least one flush interval ("
                    + flushInterval + "), was " + failClosedAfter);
        }
        if (maxKeysPerCall < 1) {
            throw new IllegalArgumentException("count-after's max-keys-per-call must be at least 1, was " + maxKeysPerCall);
        }
    }

    /** The flush interval, with the rest derived: fail closed after three failed flush intervals. */
    public static CountAfterSettings of(Duration flushInterval) {
        return of(flushInterval, DEFAULT_MAX_PENDING_KEYS);
    }

    public static CountAfterSettings of(Duration flushInterval, int maxPendingKeys) {
        return new CountAfterSettings(flushInterval, maxPendingKeys, flushInterval == null ? null : flushInterval.multipliedBy(3),
                DEFAULT_MAX_KEYS_PER_CALL);
    }

    /**
     * What one pod admits of a key between two answers of its flushes, in units (tokens, counts): the rule's rate
     * (the region's share of it) over one flush interval, but at least one request of {@code cost}.
     */
    public long perFlush(double unitsPerSecond, int cost) {
        return CountAfterBound.allowance(unitsPerSecond, cost, flushInterval);
    }

    /**
     * The most one pod admits of a key above its limit: one allowance counted by the flush that found the key over,
     * one more admitted while that flush's answer was on its way. A key seen by N pods runs over by at most N times this.
     */
    public long overshootBoundPerPod(double unitsPerSecond, int cost) {
        return 2 * perFlush(unitsPerSecond, cost);
    }
}
