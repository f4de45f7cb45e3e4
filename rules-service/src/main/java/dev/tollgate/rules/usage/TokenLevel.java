package dev.tollgate.rules.usage;

import dev.tollgate.limiter.store.BucketLevel;

/**
 * A token bucket's level at a given time, from its stored state, without writing anything back: the
 * engine's own refill ({@link BucketLevel}), never a copy of it. Integer milli-tokens throughout.
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
        BucketLevel level = BucketLevel.at(nowMs, storedMilli, storedTs, refillMilli, periodMs, burstMilli);
        return new TokenLevel(level.milli(), burstMilli, storedMilli != null && storedTs != null);
    }

    long tokens() {
        return Math.floorDiv(milli, 1000);
    }

    long capacity() {
        return Math.floorDiv(capacityMilli, 1000);
    }
}
