package dev.tollgate.limiter.breaker;

import java.time.Duration;

/**
 * @param failuresToOpen timeouts (or refusals) in a row that open a shard's breaker (design: 3)
 * @param openFor        how long checks stay on fallback before one probe goes to the shard (design: 1 s)
 */
public record BreakerSettings(int failuresToOpen, Duration openFor) {

    public static final BreakerSettings DEFAULTS = new BreakerSettings(3, Duration.ofSeconds(1));

    public BreakerSettings {
        if (failuresToOpen < 1) {
            throw new IllegalArgumentException("BreakerSettings.failuresToOpen must be at least 1, was " + failuresToOpen);
        }
        if (openFor == null || openFor.isNegative() || openFor.isZero()) {
            throw new IllegalArgumentException("BreakerSettings.openFor must be positive, was " + openFor);
        }
    }
}
