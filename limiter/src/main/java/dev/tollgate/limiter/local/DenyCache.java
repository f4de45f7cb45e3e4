package dev.tollgate.limiter.local;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * "Remember the no": after the store denies a limit, the pod denies it locally for as long as the store
 * said to hold off, so a client hammering past its limit costs one store call per retry interval per
 * pod instead of one per request.
 *
 * <p>Two things are remembered apart. How long the pod trusts the deny is the store's hold, capped at
 * {@code maxTtl} so that a raised limit (an override) is seen within that time even for a daily quota
 * that is exhausted until midnight. What the client is told is the store's own wait, counted down: a
 * bucket that refills one token a minute answers "retry in 56 s" from the cache too, never the cap.
 * A deny is remembered with the cost that was refused: a bucket too low for 10 tokens may still pay 1,
 * so only requests of at least that cost are answered from it.
 */
public final class DenyCache {

    private record Denial(long trustedUntilNanos, long retryAtNanos, int cost) {
    }

    private final Cache<String, Denial> denials;
    private final LongSupplier nanoTime;
    private final long maxTtlNanos;

    public DenyCache(Duration maxTtl, int maxKeys, LongSupplier nanoTime) {
        this.maxTtlNanos = maxTtl.toNanos();
        this.nanoTime = nanoTime;
        this.denials = Caffeine.newBuilder()
                .maximumSize(maxKeys)
                .expireAfterWrite(maxTtl)
                .executor(Runnable::run)
                .build();
    }

    /**
     * Remembers that {@code ruleId} on {@code key} cannot pay {@code cost}: trusted for {@code holdMs}
     * (at most the cache's ttl), and due again in {@code retryMs} as the store counts it.
     */
    public void deny(String ruleId, String key, int cost, long holdMs, long retryMs) {
        long now = nanoTime.getAsLong();
        Denial denial = new Denial(now + Math.min(millisToNanos(holdMs), maxTtlNanos), now + millisToNanos(Math.max(holdMs, retryMs)), cost);
        // two replies for the same cost (concurrent calls from this pod): the later hold is another caller's
        // queue slot, keep it; a reply for another cost is newer word on that cost: it replaces the old one
        denials.asMap().merge(id(ruleId, key), denial, (old, newer) -> old.cost() != newer.cost() ? newer
                : new Denial(Math.max(old.trustedUntilNanos(), newer.trustedUntilNanos()), Math.max(old.retryAtNanos(), newer.retryAtNanos()), newer.cost()));
    }

    /**
     * Milliseconds until the limit could pay {@code cost} again, when the pod may still answer that
     * from memory; 0 when the store must be asked.
     */
    public long retryMs(String ruleId, String key, int cost) {
        Denial denial = denials.getIfPresent(id(ruleId, key));
        if (denial == null || cost < denial.cost()) {
            return 0;
        }
        long now = nanoTime.getAsLong();
        if (now >= denial.trustedUntilNanos()) {
            return 0;
        }
        return Math.max(1, (denial.retryAtNanos() - now) / 1_000_000L);
    }

    private static long millisToNanos(long ms) {
        return Math.min(ms, Long.MAX_VALUE / 1_000_000L) * 1_000_000L;
    }

    private static String id(String ruleId, String key) {
        return ruleId + '\u0000' + key;
    }
}
