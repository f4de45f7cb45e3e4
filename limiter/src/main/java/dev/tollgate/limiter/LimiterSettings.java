package dev.tollgate.limiter;

import dev.tollgate.limiter.breaker.BreakerSettings;

/**
 * How the engine behaves, beyond where its rules and counters live.
 *
 * @param maxEntries entries one check may carry (each may cost a script call)
 * @param breaker       when a shard's breaker opens and probes
 * @param optimizations which local answers come before the store (all off: one exact script per check)
 */
public record LimiterSettings(int maxEntries, BreakerSettings breaker, Optimizations optimizations) {

    public static final LimiterSettings DEFAULTS = new LimiterSettings(64, BreakerSettings.DEFAULTS, Optimizations.NONE);

    public LimiterSettings(int maxEntries, BreakerSettings breaker) {
        this(maxEntries, breaker, Optimizations.NONE);
    }

    public LimiterSettings {
        if (maxEntries < 1 || maxEntries > 1024) {
            throw new IllegalArgumentException("tollgate.check.max-entries must be between 1 and 1024, was " + maxEntries);
        }
        breaker = breaker == null ? BreakerSettings.DEFAULTS : breaker;
        optimizations = optimizations == null ? Optimizations.NONE : optimizations;
    }

    public LimiterSettings withBreaker(BreakerSettings newBreaker) {
        return new LimiterSettings(maxEntries, newBreaker, optimizations);
    }

    public LimiterSettings withOptimizations(Optimizations newOptimizations) {
        return new LimiterSettings(maxEntries, breaker, newOptimizations);
    }
}
