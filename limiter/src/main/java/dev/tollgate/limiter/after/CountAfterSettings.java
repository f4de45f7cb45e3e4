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
 * @param failClosedAfter how long a shard must have left a flush call unanswered (failed, or still out) before its
 *                        fail-closed count-after rules deny (until then, and for fail-open rules always, the pod
 *                        admits up to the per-flush allowance)
 * @param maxKeysPerCall  keys in one flush call, so that one script call stays short: Redis runs nothing else while it
 *                        runs, so a long one would stall the shard's checks
 * @param flushTimeout    how long one flush call may take before it counts as failed (and is resent): its own, longer
 *                        than the check's command timeout, since a call of hundreds of keys is no check
 * @param resendFor       how long a failed call is resent (with the same id, so it is counted once): past this age its
 *                        counts are dropped; the store remembers a call ran for {@link #markerTtl}, twice this
 */
public record CountAfterSettings(Duration flushInterval, int maxPendingKeys, Duration failClosedAfter, int maxKeysPerCall,
                                 Duration flushTimeout, Duration resendFor) {

    public static final Duration DEFAULT_FLUSH_INTERVAL = Duration.ofMillis(100);
    public static final int DEFAULT_MAX_PENDING_KEYS = 200_000;
    /**
     * About a millisecond of the shard's time: a call of 500 keys ran 2.6 ms in Redis on the test cluster (about 5 µs a
     * key, CountAfterIT), and a check queued behind it waits that long, past the design's 1 ms.
     */
    public static final int DEFAULT_MAX_KEYS_PER_CALL = 200;
    public static final Duration DEFAULT_FLUSH_TIMEOUT = Duration.ofSeconds(1);
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
        if (flushTimeout == null || flushTimeout.toMillis() < 1 || flushTimeout.compareTo(Duration.ofMinutes(1)) > 0) {
            throw new IllegalArgumentException("tollgate.count-after.flush-timeout must be between 1 ms and 1 min, was " + flushTimeout);
        }
        if (resendFor == null || resendFor.compareTo(flushTimeout) < 0) {
            throw new IllegalArgumentException("count-after's resend-for must be at least one flush timeout (" + flushTimeout
                    + "), was " + resendFor);
        }
    }

    /** The flush interval, with the rest derived: fail closed after three flush intervals unanswered. */
    public static CountAfterSettings of(Duration flushInterval) {
        return of(flushInterval, DEFAULT_MAX_PENDING_KEYS);
    }

    public static CountAfterSettings of(Duration flushInterval, int maxPendingKeys) {
        return of(flushInterval, maxPendingKeys, DEFAULT_FLUSH_TIMEOUT);
    }

    /** ... and a failed call resent until its counts are five flush timeouts old. */
    public static CountAfterSettings of(Duration flushInterval, int maxPendingKeys, Duration flushTimeout) {
        return new CountAfterSettings(flushInterval, maxPendingKeys, flushInterval == null ? null : flushInterval.multipliedBy(3),
                DEFAULT_MAX_KEYS_PER_CALL, flushTimeout, flushTimeout == null ? null : flushTimeout.multipliedBy(5));
    }

    /**
     * How long the store remembers that a flush call ran, so that a resend counts nothing: twice as long as a call is
     * resent, so that a resend sent at the last moment and slow to arrive still finds the mark.
     */
    public Duration markerTtl() {
        return resendFor.multipliedBy(2);
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
