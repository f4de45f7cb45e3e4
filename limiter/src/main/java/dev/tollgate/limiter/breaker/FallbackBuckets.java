package dev.tollgate.limiter.breaker;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import dev.tollgate.store.script.Spend;
import dev.tollgate.limiter.local.LocalBucket;

import java.time.Duration;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The pod's own buckets for keys whose shard cannot be reached, sized at the design's
 * {@code limit ÷ pods × 2}: still bounded (at most twice the limit across the fleet) while the store is
 * gone. Buckets are kept per limit and key, not per shard: during a failover a key moves to a new
 * primary (a new shard, a new breaker), and a fresh full bucket there would let through a second burst.
 *
 * <p>A bucket outlives the outage it was made in, so the bound holds for all the outages of its window
 * together: a shard that flaps (three timeouts, a second on fallback, a probe that replies, again) used to
 * get a full bucket at every close, for a daily quota a day's allowance per flap. A bucket is
 * forgotten only once it would be full again anyway, a drained bucket's refill time after its last use.
 * When the pod count or the key's share it was sized for changes, it is resized, as full in proportion.
 * The map is a size-bounded LRU besides: a long outage over millions of keys evicts the coldest keys,
 * never every key at once (which would hand every key at its limit a fresh burst).
 */
public final class FallbackBuckets {

    static final int MAX_KEYS = 200_000;

    /** A bucket with the pod share it was sized for. */
    private record Entry(Size size, LocalBucket bucket) {
    }

    /** One pod's share of a limit's rate and burst. */
    private record Size(double tokensPerSecond, double capacity) {

        static Size of(Spend spend, int pods) {
            double scale = 2.0 / Math.max(1, pods);
            return new Size(spend.tokensPerSecond() * scale, spend.capacity() * scale);
        }

        /** Always room for one request of this cost, or a costly request could never pass. */
        double capacityFor(int cost) {
            return Math.max(cost, capacity);
        }
    }

    private final Cache<String, Entry> buckets;
    private final LongSupplier nanoTime;

    public FallbackBuckets(LongSupplier nanoTime) {
        this(nanoTime, MAX_KEYS);
    }

    FallbackBuckets(LongSupplier nanoTime, int maxKeys) {
        this.nanoTime = nanoTime;
        this.buckets = Caffeine.newBuilder()
                .maximumSize(maxKeys)
                .expireAfter(Expiry.<String, Entry>accessing((id, entry) -> Duration.ofNanos(entry.bucket().nanosToFill())))
                .ticker(nanoTime::getAsLong)
                .executor(Runnable::run)
                .build();
    }

    /** What the fallback buckets answered for one key group: remaining per spend, and retry on deny. */
    public record Answer(boolean allowed, long[] remaining, long retryMs) {
    }

    /** Spends every spend's cost from its fallback bucket, all or nothing. */
    public Answer spend(String key, List<Spend> spends, int pods) {
        long now = nanoTime.getAsLong();
        LocalBucket[] taken = new LocalBucket[spends.size()];
        long[] remaining = new long[spends.size()];
        for (int i = 0; i < spends.size(); i++) {
            Spend spend = spends.get(i);
            Size size = Size.of(spend, pods);
            LocalBucket bucket = buckets.asMap().compute(id(spend, key), (id, entry) -> {
                if (entry == null) {
                    return new Entry(size, new LocalBucket(size.tokensPerSecond(), size.capacityFor(spend.cost()), now));
                }
                if (entry.size().equals(size)) {
                    return entry;
                }
                return new Entry(size, entry.bucket().resized(size.tokensPerSecond(), size.capacityFor(spend.cost()), now));
            }).bucket();
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

    /** What {@link #spend} would answer now, spending nothing: a bucket not made yet is full. */
    public Answer peek(String key, List<Spend> spends, int pods) {
        long now = nanoTime.getAsLong();
        long[] remaining = new long[spends.size()];
        long retryMs = 0;
        for (int i = 0; i < spends.size(); i++) {
            Spend spend = spends.get(i);
            Entry entry = buckets.getIfPresent(id(spend, key));
            remaining[i] = entry == null ? (long) Size.of(spend, pods).capacityFor(spend.cost()) : entry.bucket().available(now);
            if (entry != null && remaining[i] < spend.cost()) {
                retryMs = Math.max(retryMs, Math.max(1, entry.bucket().nanosUntil(spend.cost(), now) / 1_000_000));
            }
        }
        return new Answer(retryMs == 0, remaining, retryMs);
    }

    /** Gives back what {@link #spend} took for a request that another limit of its check denied. */
    public void giveBack(String key, List<Spend> spends) {
        for (Spend spend : spends) {
            Entry entry = buckets.getIfPresent(id(spend, key));
            if (entry != null) {
                entry.bucket().refund(spend.cost());
            }
        }
    }

    /** Buckets held now, for tests and diagnostics. */
    long size() {
        buckets.cleanUp();
        return buckets.estimatedSize();
    }

    private static String id(Spend spend, String key) {
        return spend.rule().id() + '\u0000' + key;
    }
}
