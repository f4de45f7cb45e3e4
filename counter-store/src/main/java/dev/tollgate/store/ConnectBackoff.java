package dev.tollgate.store;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * The wait before the next connect attempt: doubling from {@code first}, capped at {@code max}, each
 * wait drawn at random from its upper half. The cap is what bounds recovery: a pod whose cluster comes
 * back is at most {@code max} plus one attempt away from connecting, so half a second keeps it within
 * the "about a second". The jitter keeps a region's pods, started together, from retrying in step.
 *
 * @param first the wait after the first failure
 * @param max   the longest wait
 */
record ConnectBackoff(Duration first, Duration max) {

    static final ConnectBackoff DEFAULT = new ConnectBackoff(Duration.ofMillis(50), Duration.ofMillis(500));

    ConnectBackoff {
        if (first.isNegative() || first.isZero() || max.compareTo(first) < 0) {
            throw new IllegalArgumentException("backoff needs 0 < first <= max, was " + first + " and " + max);
        }
    }

    /** The wait after the {@code failures}-th failure in a row (1 for the first). */
    Duration delay(int failures, RandomGenerator random) {
        long ceiling = first.toMillis();
        for (int i = 1; i < failures && ceiling < max.toMillis(); i++) {
            ceiling *= 2;
        }
        ceiling = Math.min(ceiling, max.toMillis());
        long floor = ceiling / 2;
        return Duration.ofMillis(floor + random.nextLong(ceiling - floor + 1));
    }
}
