package dev.tollgate.limiter.breaker;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import dev.tollgate.store.script.Spend;
import dev.tollgate.limiter.local.LocalBucket;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The pod's own buckets for keys whose shard cannot be reached, sized at the design's
 * {@code limit ÷ pods × 2}: still bounded (at most twice the limit across the fleet) while the store is
 * gone. Buckets are kept per limit and key, not per shard: during a failover a key moves to a new
 * primary (a new shard, a new breaker), and a fresh full bucket there would let through a second burst.
 *
 * <p>When the breaker of the shard a bucket was last used for closes, the bucket is stale: the next
 * outage starts from a full bucket sized by the pod count of that moment. Closing a breaker only moves
 * the shard's generation on (it runs inside the breaker's state transition, on a request thread, so it
 * must not walk the map); a stale bucket is replaced when next touched. The map is a size-bounded LRU
 * with idle expiry: a long outage over millions of keys evicts the coldest keys, never every key at
 * once (which would hand every key at its limit a fresh burst), and buckets of a shard that never comes
 * back (its slots moved) leave after {@link #IDLE}.
 */
public final class FallbackBuckets {

    static final int MAX_KEYS = 200_000;
    static final Duration IDLE = Duration.ofMinutes(2);

    private record Entry(String shard, long generation, LocalBucket bucket) {
    }

    private final Cache<String, Entry> buckets;
    private final Map<String, AtomicLong> generations = new ConcurrentHashMap<>();
    private final LongSupplier nanoTime;

    public FallbackBuckets(LongSupplier nanoTime) {
        this(nanoTime, MAX_KEYS);
    }

    FallbackBuckets(LongSupplier nanoTime, int maxKeys) {
        this.nanoTime = nanoTime;
        this.buckets = Caffeine.newBuilder()
                .maximumSize(maxKeys)
                .expireAfterAccess(IDLE)
                .ticker(nanoTime::getAsLong)
                .executor(Runnable::run)
                .build();
    }

    /** What the fallback buckets answered for one key group: remaining per spend, and retry on deny. */
    public record Answer(boolean allowed, long[] remaining, long retryMs) {
    }

    /** Spends every spend's cost from its fallback bucket, all or nothing. */
    public Answer spend(String shard, String key, List<Spend> spends, int pods) {
        long now = nanoTime.getAsLong();
        long generation = generation(shard).get();
        LocalBucket[] taken = new LocalBucket[spends.size()];
        long[] remaining = new long[spends.size()];
        for (int i = 0; i < spends.size(); i++) {
            Spend spend = spends.get(i);
            LocalBucket bucket = buckets.asMap().compute(spend.rule().id() + '\u0000' + key, (id, entry) -> {
                if (entry == null || entry.generation() != generation(entry.shard()).get()) {
                    return new Entry(shard, generation, newBucket(spend, pods, now));
                }
                return entry.shard().equals(shard) ? entry : new Entry(shard, generation, entry.bucket());
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

    /** Gives back what {@link #spend} took for a request that another limit of its check denied. */
    public void giveBack(String key, List<Spend> spends) {
        for (Spend spend : spends) {
            Entry entry = buckets.getIfPresent(spend.rule().id() + '\u0000' + key);
            if (entry != null) {
                entry.bucket().refund(spend.cost());
            }
        }
    }

    /** The shard's breaker closed: its buckets are stale from now on. O(1), safe on any thread. */
    public void drop(String shard) {
        generation(shard).incrementAndGet();
    }

    /** Buckets held now, for tests and diagnostics. */
    long size() {
        buckets.cleanUp();
        return buckets.estimatedSize();
    }

    private AtomicLong generation(String shard) {
        AtomicLong generation = generations.get(shard);
        return generation != null ? generation : generations.computeIfAbsent(shard, s -> new AtomicLong());
    }

    static LocalBucket newBucket(Spend spend, int pods, long now) {
        double scale = 2.0 / Math.max(1, pods);
        return new LocalBucket(spend.tokensPerSecond() * scale, Math.max(spend.cost(), spend.capacity() * scale), now);
    }
}
