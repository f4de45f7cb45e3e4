package dev.tollgate.check.rules;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * How long a pod waits before it tries rules-service (or the token issuer) again: exponential backoff
 * with full jitter, capped, back to the start after a success. The jitter is the point: 150 pods that
 * lost rules-service at the same moment would otherwise come back at the same moments, in waves, each
 * asking for a full snapshot.
 *
 * <p>The n-th wait in a row is drawn uniformly from {@code [0, min(max, initial × 2^n)]}. Not thread-safe:
 * one watcher thread owns it.
 */
final class Backoff {

    private final Duration initial;
    private final Duration max;
    private final RandomGenerator random;
    private int failures;

    /**
     * @param initial the ceiling of the first wait
     * @param max     the ceiling no wait goes over
     * @param random  where the jitter comes from (a seeded one in tests)
     */
    Backoff(Duration initial, Duration max, RandomGenerator random) {
        if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0) {
            throw new IllegalArgumentException("a backoff needs 0 < initial <= max, was " + initial + " and " + max);
        }
        this.initial = initial;
        this.max = max;
        this.random = random;
    }

    /** The wait after one more failure in a row. */
    Duration next() {
        long ceiling = ceilingMillis(failures);
        if (failures < Integer.MAX_VALUE) {
            failures++;
        }
        return Duration.ofMillis(random.nextLong(ceiling + 1));
    }

    /** A success: the next failure waits as little as the first one did. */
    void reset() {
        failures = 0;
    }

    /** The ceiling of the wait after {@code failuresSoFar} failures in a row, doubling up to {@code max}. */
    long ceilingMillis(int failuresSoFar) {
        long ceiling = initial.toMillis();
        // doubling past max's bit length cannot stay under max: stop there rather than overflow
        for (int i = 0; i < failuresSoFar && ceiling < max.toMillis(); i++) {
            ceiling <<= 1;
        }
        return Math.min(ceiling, max.toMillis());
    }
}
