package dev.tollgate.rules.usage;

/**
 * A token bucket's level at a given time, computed from its stored state exactly as
 * {@code token_bucket.lua} refills it, without writing anything back. Integer milli-tokens throughout.
 *
 * @param milli   milli-tokens in the bucket now
 * @param stored  false when the bucket does not exist: never used, or expired because it was full
 */
record TokenLevel(long milli, long capacityMilli, boolean stored) {

    /**
     * @param storedMilli {@code tokens_milli} from the hash, or null
     * @param storedTs    {@code ts_ms} from the hash, or null
     * @param refillMilli milli-tokens added per period
     * @param periodMs    the refill period
     * @param burstMilli  the capacity
     */
    static TokenLevel at(long nowMs, Long storedMilli, Long storedTs, long refillMilli, long periodMs, long burstMilli) {
        if (storedMilli == null || storedTs == null) {
            return new TokenLevel(burstMilli, burstMilli, false);
        }
        long level = Math.min(storedMilli, burstMilli);
        long ts = storedTs;
        if (ts > nowMs) {
            // a timestamp ahead of the store's clock (a promoted replica): the script restarts the refill
            return new TokenLevel(level, burstMilli, true);
        }
        long elapsed = nowMs - ts;
        if (level >= burstMilli || elapsed >= ceilDiv((burstMilli - level) * periodMs, refillMilli)) {
            return new TokenLevel(burstMilli, burstMilli, true);
        }
        return new TokenLevel(level + elapsed * refillMilli / periodMs, burstMilli, true);
    }

    long tokens() {
        return Math.floorDiv(milli, 1000);
    }

    long capacity() {
        return Math.floorDiv(capacityMilli, 1000);
    }

    private static long ceilDiv(long a, long b) {
        return -Math.floorDiv(-a, b);
    }
}
