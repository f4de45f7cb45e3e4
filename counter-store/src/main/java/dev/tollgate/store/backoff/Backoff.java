package dev.tollgate.store.backoff;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * The wait before the next try after failures in a row: a ceiling that doubles from {@code first} with each
 * failure up to {@code max}, and a wait drawn below it as {@code jitter} says. The cap bounds how late a
 * caller notices that its peer is back; the jitter keeps callers that failed together (a region's pods, cut
 * off or started at once) from coming back in step, in waves.
 *
 * <p>The n-th failure in a row (1 for the first) has the ceiling {@code min(max, first × 2^(n-1))}, in whole
 * milliseconds. Immutable: a caller that counts its failures itself asks {@link #delay}; one that does not
 * keeps a {@link Streak}.
 *
 * @param first  the ceiling of the first wait, at least a millisecond
 * @param max    the ceiling no wait goes over
 * @param jitter where below its ceiling a wait is drawn
 */
public record Backoff(Duration first, Duration max, Jitter jitter) {

    /** Where a wait is drawn, given its ceiling. */
    public enum Jitter {
        /** Uniformly from {@code [0, ceiling]}: spreads callers the most, and a wait may be none at all. */
        FULL,
        /** Uniformly from {@code [ceiling / 2, ceiling]}: spread, yet never much sooner than the ceiling. */
        EQUAL,
        /** The ceiling itself: no spread, for a caller that has no peers to fall in step with. */
        NONE
    }

    public Backoff {
        if (first == null || max == null || jitter == null) {
            throw new IllegalArgumentException("a backoff needs a first wait, a max and a jitter, was " + first + ", " + max + " and " + jitter);
        }
        if (first.toMillis() < 1 || max.compareTo(first) < 0) {
            throw new IllegalArgumentException("a backoff needs 1 ms <= first <= max, was " + first + " and " + max);
        }
    }

    /** The ceiling of the wait after the {@code failures}-th failure in a row (1 for the first). */
    public Duration ceiling(int failures) {
        return Duration.ofMillis(ceilingMillis(failures));
    }

    /** The wait after the {@code failures}-th failure in a row (1 for the first); {@code random} is not drawn from for {@link Jitter#NONE}. */
    public Duration delay(int failures, RandomGenerator random) {
        long ceiling = ceilingMillis(failures);
        long floor = switch (jitter) {
            case FULL -> 0;
            case EQUAL -> ceiling / 2;
            case NONE -> ceiling;
        };
        return Duration.ofMillis(floor == ceiling ? ceiling : floor + random.nextLong(ceiling - floor + 1));
    }

    /** A streak of failures that starts empty, drawing its waits from {@code random} (a seeded one in tests). */
    public Streak streak(RandomGenerator random) {
        return new Streak(this, random);
    }

    private long ceilingMillis(int failures) {
        if (failures < 1) {
            throw new IllegalArgumentException("a wait follows at least one failure, was " + failures);
        }
        long cap = max.toMillis();
        long ceiling = first.toMillis();
        // stop at the cap rather than double on: a streak of thousands of failures must not overflow
        for (int i = 1; i < failures && ceiling < cap; i++) {
            ceiling = ceiling > cap / 2 ? cap : ceiling * 2;
        }
        return ceiling;
    }

    /**
     * The failures in a row of one retry loop, for a caller that does not count them itself: {@link #next} after a
     * failure, {@link #reset} after a success. Not thread-safe: the one thread that runs the loop owns it.
     */
    public static final class Streak {

        private final Backoff backoff;
        private final RandomGenerator random;
        private int failures;

        private Streak(Backoff backoff, RandomGenerator random) {
            if (random == null) {
                throw new IllegalArgumentException("a backoff streak needs a random generator for its jitter");
            }
            this.backoff = backoff;
            this.random = random;
        }

        /** The wait after one more failure in a row. */
        public Duration next() {
            if (failures < Integer.MAX_VALUE) {
                failures++;
            }
            return backoff.delay(failures, random);
        }

        /** A success: the next failure waits no longer than the first one did. */
        public void reset() {
            failures = 0;
        }
    }
}
