package dev.tollgate.limiter;

import dev.tollgate.limiter.after.CountAfterSettings;
import dev.tollgate.limiter.breaker.BreakerSettings;

import java.time.Duration;

/**
 * How the engine behaves, beyond where its rules and counters live.
 *
 * @param maxEntries    entries one check may carry (each may cost a script call)
 * @param breaker       when a shard's breaker opens and probes
 * @param optimizations which local answers come before the store (all off: one exact script per check)
 * @param deadline      the longest a check may take, whatever the store, its client or a breaker do: a key
 *                      group still unanswered then gets its rule's fail mode (the fallback bucket, or
 *                      504 for a fail-closed rule). A few times the store's command timeout: a check may
 *                      need a second call (NOSCRIPT, a fixed window's rename) and a lease call's waiters
 *                      queue behind it
 * @param countAfter    how rules with {@code counting: after} are flushed (docs/rules.md, "Counting after")
 */
public record LimiterSettings(int maxEntries, BreakerSettings breaker, Optimizations optimizations, Duration deadline,
                              CountAfterSettings countAfter) {

    /** Entries one check may carry at most: each may cost a script call. */
    public static final int MAX_ENTRIES = 1024;
    /** Generous for a library whose store timeout is unknown; check-service derives its own from the command timeout. */
    public static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(1);
    public static final LimiterSettings DEFAULTS = new LimiterSettings(64, BreakerSettings.DEFAULTS, Optimizations.NONE, DEFAULT_DEADLINE);

    public LimiterSettings {
        if (maxEntries < 1 || maxEntries > MAX_ENTRIES) {
            throw new IllegalArgumentException("LimiterSettings.maxEntries must be between 1 and " + MAX_ENTRIES + ", was " + maxEntries);
        }
        breaker = breaker == null ? BreakerSettings.DEFAULTS : breaker;
        optimizations = optimizations == null ? Optimizations.NONE : optimizations;
        deadline = deadline == null ? DEFAULT_DEADLINE : deadline;
        countAfter = countAfter == null ? CountAfterSettings.DEFAULTS : countAfter;
        if (deadline.isNegative() || deadline.isZero() || deadline.compareTo(Duration.ofMinutes(1)) > 0) {
            throw new IllegalArgumentException("LimiterSettings.deadline must be positive and at most a minute, was " + deadline);
        }
    }

    /** Settings with count-after's defaults. */
    public LimiterSettings(int maxEntries, BreakerSettings breaker, Optimizations optimizations, Duration deadline) {
        this(maxEntries, breaker, optimizations, deadline, null);
    }

    public LimiterSettings withOptimizations(Optimizations newOptimizations) {
        return new LimiterSettings(maxEntries, breaker, newOptimizations, deadline, countAfter);
    }

    public LimiterSettings withDeadline(Duration newDeadline) {
        return new LimiterSettings(maxEntries, breaker, optimizations, newDeadline, countAfter);
    }

    public LimiterSettings withCountAfter(CountAfterSettings newCountAfter) {
        return new LimiterSettings(maxEntries, breaker, optimizations, deadline, newCountAfter);
    }
}
