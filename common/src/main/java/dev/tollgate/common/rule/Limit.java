package dev.tollgate.common.rule;

/**
 * What a rule admits, in its own algorithm's terms: a token bucket refills, a sliding log and a fixed
 * window count per window. The algorithm follows from the kind, so a rule cannot carry the numbers of
 * another algorithm, and a reader never meets a field that does not apply.
 *
 * <p>The numbers are held as given: {@link dev.tollgate.common.validation.RuleValidator} decides whether
 * they can be enforced.
 */
public sealed interface Limit permits Limit.TokenBucket, Limit.CountPerWindow {

    Algorithm algorithm();

    /** Requests per second at the steady rate: what the limit lets through over a long run. */
    double perSecond();

    /** What the limit admits at once: the burst, or the count per window. */
    int capacity();

    /**
     * {@code ratePerS} tokens every {@code periodS} seconds, up to {@code burst}.
     *
     * @param periodS 1 unless a plan is per minute or per hour (a rate of 1 per 60 s is 1 per minute)
     */
    record TokenBucket(int ratePerS, int periodS, int burst) implements Limit {

        /** The period when a rule names none: rates are per second. */
        static final int DEFAULT_PERIOD_S = 1;

        public static TokenBucket perSecond(int ratePerS, int burst) {
            return new TokenBucket(ratePerS, DEFAULT_PERIOD_S, burst);
        }

        /** The same period with an account's own rate and burst (an override). */
        public TokenBucket withRateAndBurst(int newRatePerS, int newBurst) {
            return new TokenBucket(newRatePerS, periodS, newBurst);
        }

        @Override
        public Algorithm algorithm() {
            return Algorithm.TOKEN_BUCKET;
        }

        @Override
        public double perSecond() {
            return (double) ratePerS / periodS;
        }

        @Override
        public int capacity() {
            return burst;
        }
    }

    /** At most {@code limit} per {@code windowS} seconds: what a sliding log and a fixed window share. */
    sealed interface CountPerWindow extends Limit permits SlidingLog, FixedWindow {

        int limit();

        int windowS();

        @Override
        default double perSecond() {
            return (double) limit() / windowS();
        }

        @Override
        default int capacity() {
            return limit();
        }
    }

    /** At most {@code limit} accepted events in any trailing {@code windowS}: login attempts. */
    record SlidingLog(int limit, int windowS) implements CountPerWindow {

        @Override
        public Algorithm algorithm() {
            return Algorithm.SLIDING_LOG;
        }
    }

    /** At most {@code limit} per UTC-aligned {@code windowS}: daily quotas. */
    record FixedWindow(int limit, int windowS) implements CountPerWindow {

        @Override
        public Algorithm algorithm() {
            return Algorithm.FIXED_WINDOW;
        }
    }
}
