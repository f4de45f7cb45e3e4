package dev.tollgate.rebalancer.config;

import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Min;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

import java.time.Duration;

/**
 * How the rebalancer splits and when. Validated at start-up: a bad value stops the service with the property's name.
 *
 * @param period       one cycle per period, aligned to the wall clock (design: 10 s)
 * @param usageLag     how long after a usage window closes the cycle reads it: covers the pods' flush
 *                     interval (at most 1 s) and clock skew, so the window is complete
 * @param floor        the least share any region gets (design: 10%)
 * @param idleAfter    a key without usage this long goes back to the default split
 * @param minChange    shares that moved by no more than this in every region are not rewritten
 * @param minUsage     the least share of its limit a key must use in a 10 s usage window, summed over the
 *                     regions, to get (and keep) region budget rows; below it the default split serves it.
 *                     At most the floor, so such a key fits in any region's share. Keeps out the long
 *                     tail of keys that barely spend, each rows in every pod's snapshot
 * @param lockKey      the PostgreSQL advisory lock all instances contend for (one active rebalancer);
 *                     the default is "tollgate" in ASCII
 * @param readDeadline how long a cycle waits for a region's usage before it counts the region unreachable
 * @param maxKeysPerCycle keys written or reset per cycle at most, the largest changes first (in tokens a
 *                     second: a region's share moved times the key's limit); the rest
 *                     wait for the next cycles. Bounds the write transaction: about 3 rows per key, and
 *                     PostgreSQL upserts some 50,000 rows a second on a small machine
 */
@Validated
@ConfigurationProperties("tollgate.rebalancer")
public record RebalancerProperties(
        @DefaultValue("10s") @DurationMin(seconds = 1) Duration period,
        @DefaultValue("2s") @DurationMin(nanos = 0) Duration usageLag,
        @DefaultValue("0.10") @DecimalMin(value = "0", inclusive = false) @DecimalMax("1") double floor,
        @DefaultValue("5m") @DurationMin(nanos = 1) Duration idleAfter,
        @DefaultValue("0.01") @DecimalMin("0") @DecimalMax(value = "1", inclusive = false) double minChange,
        @DefaultValue("0.10") @DecimalMin("0") @DecimalMax("1") double minUsage,
        @DefaultValue("8390043843661231205") long lockKey,
        @DefaultValue("3s") @DurationMin(nanos = 1) Duration readDeadline,
        @DefaultValue("25000") @Min(1) int maxKeysPerCycle) {

    /** The cycle reads a window after it closed by this lag; the lag must end before the next cycle starts. */
    @AssertTrue(message = "tollgate.rebalancer.usage-lag must be below tollgate.rebalancer.period")
    public boolean isUsageLagBelowPeriod() {
        return usageLag == null || period == null || usageLag.compareTo(period) < 0;
    }

    /** A key idle for less than one cycle could never be seen idle. */
    @AssertTrue(message = "tollgate.rebalancer.idle-after must be at least tollgate.rebalancer.period")
    public boolean isIdleAfterAtLeastPeriod() {
        return idleAfter == null || period == null || idleAfter.compareTo(period) >= 0;
    }

    /** Below the floor, a key under the minimum fits in any region's share; above it, it could be served less than its limit. */
    @AssertTrue(message = "tollgate.rebalancer.min-usage must be at most tollgate.rebalancer.floor")
    public boolean isMinUsageAtMostFloor() {
        return minUsage <= floor + 1e-9;
    }

    /** A region read that may outlast the period would make cycles overlap. */
    @AssertTrue(message = "tollgate.rebalancer.read-deadline must be below tollgate.rebalancer.period")
    public boolean isReadDeadlineBelowPeriod() {
        return readDeadline == null || period == null || readDeadline.compareTo(period) < 0;
    }
}
