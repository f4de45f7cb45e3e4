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
 * gone. They are kept per shard and dropped when the shard's breaker closes, so the next outage starts
 * from full buckets sized by the pod count of that moment.
 */
public final class FallbackBuckets {

    /** An outage must not grow a pod's memory without bound: past this many keys on a shard, start over. */
    static final int MAX_KEYS_PER_SHARD = 100_000;

    private final Map<String, Map<String, LocalBucket>> byShard = new ConcurrentHashMap<>();
    private final LongSupplier nanoTime;

    public FallbackBuckets(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    /** What the fallback buckets answered for one key group: remaining per spend, and retry on deny. */
    public record Answer(boolean allowed, long[] remaining, long retryMs) {
    }

    /** Spends every spend's cost from its fallback bucket, all or nothing. */
    public Answer spend(String shard, String key, List<Spend> spends, int pods) {
        Map<String, LocalBucket> buckets = byShard.computeIfAbsent(shard, s -> new ConcurrentHashMap<>());
        if (buckets.size() > MAX_KEYS_PER_SHARD) {
            buckets.clear();
        }
        long now = nanoTime.getAsLong();
        LocalBucket[] taken = new LocalBucket[spends.size()];
        long[] remaining = new long[spends.size()];
        for (int i = 0; i < spends.size(); i++) {
            Spend spend = spends.get(i);
            LocalBucket bucket = buckets.computeIfAbsent(spend.rule().id() + '\u0000' + key,
                    k -> newBucket(spend, pods, now));
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
        byShard.remove(shard);
    }

    static LocalBucket newBucket(Spend spend, int pods, long now) {
        double scale = 2.0 / Math.max(1, pods);
        return new LocalBucket(spend.tokensPerSecond() * scale, Math.max(spend.cost(), spend.capacity() * scale), now);
    }
}
