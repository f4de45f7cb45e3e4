package dev.tollgate.rebalancer.config;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;

/**
 * How the rebalancer splits and when. Bad values stop the service at start-up with the property's name.
 *
 * @param period       one cycle per period, aligned to the wall clock (design: 10 s)
 * @param usageLag     how long after a usage window closes the cycle reads it: covers the pods' flush
 *                     interval (at most 1 s) and clock skew, so the window is complete
 * @param floor        the least share any region gets (design: 10%)
 * @param idleAfter    a key without usage this long goes back to the default split
 * @param minChange    shares that moved by no more than this in every region are not rewritten
 * @param lockKey      the PostgreSQL advisory lock all instances contend for (one active rebalancer);
 *                     the default is "tollgate" in ASCII
 * @param readDeadline how long a cycle waits for a region's usage before it counts the region unreachable
 * @param maxKeysPerCycle keys written or reset per cycle at most, the largest changes first; the rest
 *                     wait for the next cycles. Bounds the write transaction: about 3 rows per key, and
 *                     PostgreSQL upserts some 50,000 rows a second on a small machine
 */
@ConfigurationProperties("tollgate.rebalancer")
public record RebalancerProperties(
        @DefaultValue("10s") Duration period,
        @DefaultValue("2s") Duration usageLag,
        @DefaultValue("0.10") double floor,
        @DefaultValue("5m") Duration idleAfter,
        @DefaultValue("0.01") double minChange,
        @DefaultValue("8390043843661231205") long lockKey,
        @DefaultValue("3s") Duration readDeadline,
        @DefaultValue("25000") int maxKeysPerCycle) {

    public RebalancerProperties {
        require(period != null && period.compareTo(Duration.ofSeconds(1)) >= 0, "tollgate.rebalancer.period must be at least 1s, was " + period);
        require(usageLag != null && !usageLag.isNegative() && usageLag.compareTo(period) < 0,
                "tollgate.rebalancer.usage-lag must be at least 0 and below the period (" + period + "), was " + usageLag);
        require(floor > 0 && floor <= 1, "tollgate.rebalancer.floor must be in (0, 1], was " + floor);
        require(idleAfter != null && idleAfter.compareTo(period) >= 0,
                "tollgate.rebalancer.idle-after must be at least the period (" + period + "), was " + idleAfter);
        require(minChange >= 0 && minChange < 1, "tollgate.rebalancer.min-change must be in [0, 1), was " + minChange);
        require(readDeadline != null && !readDeadline.isNegative() && !readDeadline.isZero() && readDeadline.compareTo(period) < 0,
                "tollgate.rebalancer.read-deadline must be positive and below the period (" + period + "), was " + readDeadline);
        require(maxKeysPerCycle >= 1, "tollgate.rebalancer.max-keys-per-cycle must be at least 1, was " + maxKeysPerCycle);
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
