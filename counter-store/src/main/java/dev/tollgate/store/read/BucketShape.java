package dev.tollgate.store.read;

/**
 * A token bucket as a script call gives it, in integer milli-tokens (the engine scales a rule to the
 * region's share before it gets here).
 *
 * @param refillMilli milli-tokens added per period
 * @param periodMs    the refill period
 * @param burstMilli  the capacity
 */
public record BucketShape(long refillMilli, long periodMs, long burstMilli) {

    public BucketShape {
        if (refillMilli < 1 || periodMs < 1 || burstMilli < 1) {
            throw new IllegalArgumentException("a bucket needs a positive refill, period and capacity, was "
                    + refillMilli + "/" + periodMs + " ms, " + burstMilli);
        }
    }
}
