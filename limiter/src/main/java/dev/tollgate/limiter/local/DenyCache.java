package dev.tollgate.limiter.local;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * "Remember the no": after the store denies a limit with a retry time, the pod denies it locally until
 * then, so a client hammering past its limit costs one store call per retry interval per pod instead
 * of one per request. A remembered deny never outlives {@code maxTtl}, so a raised limit (an override)
 * is seen within that time even for a daily quota that is exhausted until midnight.
 */
public final class DenyCache {

    private final Cache<String, Long> deniedUntil;
    private final LongSupplier nanoTime;
    private final long maxTtlNanos;

    public DenyCache(Duration maxTtl, int maxKeys, LongSupplier nanoTime) {
        this.maxTtlNanos = maxTtl.toNanos();
        this.nanoTime = nanoTime;
        this.deniedUntil = Caffeine.newBuilder()
                .maximumSize(maxKeys)
                .expireAfterWrite(maxTtl)
                .build();
    }

    /** Remembers that {@code ruleId} on {@code key} admits nothing for {@code retryMs}. */
    public void deny(String ruleId, String key, long retryMs) {
        long until = nanoTime.getAsLong() + Math.min(retryMs * 1_000_000L, maxTtlNanos);
        deniedUntil.asMap().merge(id(ruleId, key), until, Math::max);
    }

    /** Milliseconds the limit is still denied for, or 0 when the store must be asked. */
    public long remainingMs(String ruleId, String key) {
        Long until = deniedUntil.getIfPresent(id(ruleId, key));
        if (until == null) {
            return 0;
        }
        long left = until - nanoTime.getAsLong();
        return left <= 0 ? 0 : Math.max(1, left / 1_000_000L);
    }

    private static String id(String ruleId, String key) {
        return ruleId + '\u0000' + key;
    }
}
