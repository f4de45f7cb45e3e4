package dev.tollgate.limiter.usage;

import java.time.Duration;

/**
 * How a pod reports its usage.
 *
 * @param flushInterval      how often counts go to Redis; at most 1 s, so a closed window is complete
 *                           in Redis within about a second (the rebalancer's {@code usage-lag} covers it)
 * @param maxKeysPerInterval distinct (rule, key) pairs counted per interval; entries for further pairs
 *                           are dropped and counted, so a flood of random keys cannot grow the pod's memory
 * @param flushTimeout       how long one flush may wait for Redis before its counts are dropped
 */
public record UsageSettings(Duration flushInterval, int maxKeysPerInterval, Duration flushTimeout) {

    public static final UsageSettings DEFAULTS = new UsageSettings(Duration.ofSeconds(1), 100_000, Duration.ofSeconds(1));

    public UsageSettings {
        if (flushInterval == null || flushInterval.isNegative() || flushInterval.isZero()
                || flushInterval.compareTo(Duration.ofSeconds(1)) > 0) {
            throw new IllegalArgumentException("UsageSettings.flushInterval must be above 0 and at most 1s, was " + flushInterval);
        }
        if (maxKeysPerInterval < 1) {
            throw new IllegalArgumentException("UsageSettings.maxKeysPerInterval must be at least 1, was " + maxKeysPerInterval);
        }
        if (flushTimeout == null || flushTimeout.isNegative() || flushTimeout.isZero()) {
            throw new IllegalArgumentException("UsageSettings.flushTimeout must be positive, was " + flushTimeout);
        }
    }

    public UsageSettings withFlushInterval(Duration interval) {
        return new UsageSettings(interval, maxKeysPerInterval, flushTimeout);
    }

    public UsageSettings withFlushTimeout(Duration timeout) {
        return new UsageSettings(flushInterval, maxKeysPerInterval, timeout);
    }

    public UsageSettings withMaxKeysPerInterval(int maxKeys) {
        return new UsageSettings(flushInterval, maxKeys, flushTimeout);
    }
}
