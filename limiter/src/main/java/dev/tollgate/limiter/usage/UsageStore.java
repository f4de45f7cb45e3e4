package dev.tollgate.limiter.usage;

import dev.tollgate.store.key.UsageKeys;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** Where a pod's usage counts go: the one write the recorder needs. */
public interface UsageStore extends AutoCloseable {

    /**
     * Adds {@code counts} (field to cost, see {@link UsageKeys}) to one window hash and renews its time
     * to live to {@code ttl}. Completes when stored; exceptionally when not, in which case part of it may have been.
     */
    CompletableFuture<Void> add(String window, Map<String, Long> counts, Duration ttl);

    @Override
    default void close() {
    }
}
