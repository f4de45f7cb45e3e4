package dev.tollgate.store.read;

/**
 * A token bucket's level at a given time, from its stored state, with nothing written back.
 *
 * @param redisKey      where the bucket lives
 * @param milli         milli-tokens in the bucket then
 * @param capacityMilli its capacity
 * @param stored        false when the bucket does not exist: never used, or expired because it was full
 */
public record TokenLevel(String redisKey, long milli, long capacityMilli, boolean stored) {

    /** Whole tokens: what a request of cost 1 sees. */
    public long tokens() {
        return Math.floorDiv(milli, 1000);
    }

    public long capacity() {
        return Math.floorDiv(capacityMilli, 1000);
    }
}
