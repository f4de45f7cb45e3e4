package dev.tollgate.limiter.breaker;

import dev.tollgate.limiter.algorithm.Spend;
import dev.tollgate.limiter.local.LocalBucket;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The pod's own buckets for keys whose shard cannot be reached, sized at the design's
 * {@code limit ÷ pods × 2}: still bounded (at most twice the limit across the fleet) while the store is
 * gone. A bucket is dropped when the breaker of the shard it was last used for closes, so the next
 * outage starts from full buckets sized by the pod count of that moment. Buckets are kept per limit and
 * key, not per shard: during a failover a key moves to a new primary (a new shard, a new breaker), and
 * a fresh full bucket there would let through a second burst.
 */
public final class FallbackBuckets {

    /** An outage must not grow a pod's memory without bound: past this many keys on a shard, start over. */
    static final int MAX_KEYS = 200_000;

    private record Entry(String shard, LocalBucket bucket) {
    }

    private final Map<String, Entry> buckets = new ConcurrentHashMap<>();
    private final LongSupplier nanoTime;

    public FallbackBuckets(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    /** What the fallback buckets answered for one key group: remaining per spend, and retry on deny. */
    public record Answer(boolean allowed, long[] remaining, long retryMs) {
    }

    /** Spends every spend's cost from its fallback bucket, all or nothing. */
    public Answer spend(String shard, String key, List<Spend> spends, int pods) {
        if (buckets.size() > MAX_KEYS) {
            buckets.clear();
        }
        long now = nanoTime.getAsLong();
        LocalBucket[] taken = new LocalBucket[spends.size()];
        long[] remaining = new long[spends.size()];
        for (int i = 0; i < spends.size(); i++) {
            Spend spend = spends.get(i);
            LocalBucket bucket = buckets.compute(spend.rule().id() + '\u0000' + key, (id, entry) ->
                    entry == null ? new Entry(shard, newBucket(spend, pods, now))
                            : entry.shard().equals(shard) ? entry : new Entry(shard, entry.bucket())).bucket();
            if (!bucket.tryConsume(spend.cost(), now)) {
                long retryNanos = bucket.nanosUntil(spend.cost(), now);
                for (int j = 0; j < i; j++) {
                    taken[j].refund(spends.get(j).cost());
                }
                return new Answer(false, remaining, Math.max(1, retryNanos / 1_000_000));
            }
            taken[i] = bucket;
            remaining[i] = bucket.available(now);
        }
        return new Answer(true, remaining, 0);
    }

    public void drop(String shard) {
        buckets.values().removeIf(entry -> entry.shard().equals(shard));
    }

    static LocalBucket newBucket(Spend spend, int pods, long now) {
        double scale = 2.0 / Math.max(1, pods);
        return new LocalBucket(spend.tokensPerSecond() * scale, Math.max(spend.cost(), spend.capacity() * scale), now);
    }
}
