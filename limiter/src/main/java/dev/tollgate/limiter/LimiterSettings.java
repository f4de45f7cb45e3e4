package dev.tollgate.limiter;

import dev.tollgate.limiter.breaker.BreakerSettings;

/**
 * How the engine behaves, beyond where its rules and counters live.
 *
 * @param maxEntries entries one check may carry (each may cost a script call)
 * @param breaker    when a shard's breaker opens and probes
 */
public record LimiterSettings(int maxEntries, BreakerSettings breaker) {

    public static final LimiterSettings DEFAULTS = new LimiterSettings(64, BreakerSettings.DEFAULTS);

    public LimiterSettings {
        if (maxEntries < 1 || maxEntries > 1024) {
            throw new IllegalArgumentException("tollgate.check.max-entries must be between 1 and 1024, was " + maxEntries);
        }
        breaker = breaker == null ? BreakerSettings.DEFAULTS : breaker;
    }

    public LimiterSettings withBreaker(BreakerSettings newBreaker) {
        return new LimiterSettings(maxEntries, newBreaker);
    }
}
