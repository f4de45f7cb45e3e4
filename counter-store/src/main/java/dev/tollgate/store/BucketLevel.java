package dev.tollgate.store;

/**
 * A token bucket's level at a moment, refilled from its stored state exactly as {@code spend.lua}
 * refills it: whole milli-tokens only, the refill time moved on by exactly the time they took, a missing
 * bucket full, a stored time ahead of the clock (a promoted replica's) restarting the refill. The one
 * Java copy of the script's refill, for the in-memory store and for reading a bucket without spending
 * (support's usage view); {@code CounterStoreContract} holds it to the script.
 *
 * @param milli milli-tokens in the bucket
 * @param tsMs  the time the refill has been credited up to
 */
public record BucketLevel(long milli, long tsMs) {

    /**
     * @param storedMilli {@code tokens_milli} from the hash, or null when there is no bucket
     * @param storedTs    {@code ts_ms} from the hash, or null
     * @param refillMilli milli-tokens added per period
     * @param periodMs    the refill period
     * @param burstMilli  the capacity
     */
    public static BucketLevel at(long nowMs, Long storedMilli, Long storedTs, long refillMilli, long periodMs, long burstMilli) {
        long level;
        long ts;
        if (storedMilli == null || storedTs == null || storedTs > nowMs) {
            level = Math.min(storedMilli == null ? burstMilli : storedMilli, burstMilli);
            ts = nowMs;
        } else {
            level = storedMilli;
            ts = storedTs;
        }
        // the script compares (now - ts) * refill with (burst - level) * period in doubles; in longs that product
        // overflows for a bucket untouched for long, so compare the elapsed time with the time to fill instead
        if (level >= burstMilli || nowMs - ts >= ceilDiv((burstMilli - level) * periodMs, refillMilli)) {
            return new BucketLevel(burstMilli, nowMs);
        }
        long earned = Math.floorDiv((nowMs - ts) * refillMilli, periodMs);
        return new BucketLevel(level + earned, ts + ceilDiv(earned * periodMs, refillMilli));
    }

    /** Java 17 has no Math.ceilDiv. */
    public static long ceilDiv(long dividend, long divisor) {
        return -Math.floorDiv(-dividend, divisor);
    }
}
