package dev.tollgate.limiter;

/**
 * How the engine behaves, beyond where its rules and counters live.
 *
 * @param maxEntries entries one check may carry (each may cost a script call)
 */
public record LimiterSettings(int maxEntries) {

    public static final LimiterSettings DEFAULTS = new LimiterSettings(64);

    public LimiterSettings {
        if (maxEntries < 1 || maxEntries > 1024) {
            throw new IllegalArgumentException("tollgate.check.max-entries must be between 1 and 1024, was " + maxEntries);
        }
    }
}
