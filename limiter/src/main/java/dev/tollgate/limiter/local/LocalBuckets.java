package dev.tollgate.limiter.local;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.tollgate.store.script.Spend;

import java.time.Duration;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * "Local first": a coarse bucket per limit and key in each pod, in front of every global check, so a
 * flood is cut on the pods and never reaches the store. The design sizes it at twice the pod's fair
 * share (rate ÷ pods × 2), but that caps a client pinned to 2 of 50 pods at 80/s of a 1,000/s limit,
 * the very failure the shared store exists to fix. Here it holds the key's whole rate and burst (the
 * region's share of them): it never binds before the global limit does, even for a client pinned to a
 * single pod, and still turns a 100,000/s bot into at most rate + burst requests per pod per second,
 * which the deny cache then answers locally too.
 */
public final class LocalBuckets {

    private final Cache<String, LocalBucket> buckets;
    private final LongSupplier nanoTime;

    public LocalBuckets(Duration idle, int maxKeys, LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
        this.buckets = Caffeine.newBuilder().maximumSize(maxKeys).expireAfterAccess(idle)
                .executor(Runnable::run).build();
    }

    /** Spends each spend's cost from its local bucket, all or nothing; returns the retry in ms on a deny, else 0. */
    public long trySpend(String key, List<Spend> spends) {
        long now = nanoTime.getAsLong();
        LocalBucket[] taken = new LocalBucket[spends.size()];
        for (int i = 0; i < spends.size(); i++) {
            Spend spend = spends.get(i);
            String id = id(key, spend);
            LocalBucket bucket = buckets.getIfPresent(id);
            if (bucket == null) {
                // the capturing lambda, an allocation, only on a miss
                bucket = buckets.get(id, k -> new LocalBucket(spend.tokensPerSecond(), Math.max(spend.cost(), spend.capacity()), now));
            }
            if (!bucket.tryConsume(spend.cost(), now)) {
                for (int j = 0; j < i; j++) {
                    taken[j].refund(spends.get(j).cost());
                }
                return Math.max(1, bucket.nanosUntil(spend.cost(), now) / 1_000_000L);
            }
            taken[i] = bucket;
        }
        return 0;
    }

    /** How long {@link #trySpend} would deny these spends now (0: it would take them), spending nothing. */
    public long wouldWaitMs(String key, List<Spend> spends) {
        long now = nanoTime.getAsLong();
        long wait = 0;
        for (Spend spend : spends) {
            LocalBucket bucket = buckets.getIfPresent(id(key, spend));
            if (bucket != null && bucket.available(now) < spend.cost()) {
                wait = Math.max(wait, Math.max(1, bucket.nanosUntil(spend.cost(), now) / 1_000_000L));
            }
        }
        return wait;
    }

    /**
     * Gives back what {@link #trySpend} took when the store then denied the request. Two buckets of the
     * same rate in series would otherwise admit far less than either: under overload the local one
     * would spend its tokens on requests the store refuses, and be empty when the store has room.
     */
    public void refund(String key, List<Spend> spends) {
        for (Spend spend : spends) {
            LocalBucket bucket = buckets.getIfPresent(id(key, spend));
            if (bucket != null) {
                bucket.refund(spend.cost());
            }
        }
    }

    /**
     * The limit's size is part of the name: a raised limit (an override) gets a bucket of its own size. The sizes by
     * their bits, not their decimals: as exact, and no double formatting on every check.
     */
    private static String id(String key, Spend spend) {
        return spend.rule().id() + '\u0000' + key + '\u0000' + Double.doubleToLongBits(spend.tokensPerSecond()) + '\u0000'
                + Double.doubleToLongBits(spend.capacity());
    }
}
