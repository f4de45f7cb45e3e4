package dev.tollgate.store.read;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * What the control path reads from a region's counter store, without spending: a token bucket's level,
 * a sliding log's or a fixed window's count, and the usage the pods report. The store side names the
 * keys and does the scripts' arithmetic, so a reader never repeats either. Every read is sent at once
 * and answers later (a reader sends all of a key's reads before it awaits the first); a failure
 * completes the future exceptionally.
 */
public interface CounterReads {

    /** The store's clock in ms: the Redis {@code TIME} the scripts read, so a level is computed as the next script would. */
    CompletableFuture<Long> clockMs();

    /** A token bucket's level at {@code nowMs}, refilled exactly as {@code spend.lua} refills it. */
    CompletableFuture<TokenLevel> tokenLevel(String key, String ruleId, BucketShape bucket, long nowMs);

    /** A sliding log's entries still inside its window at {@code nowMs}, as the script would trim them. */
    CompletableFuture<LogCount> logCount(String key, String ruleId, long windowMs, long nowMs);

    /** The count of the fixed window that holds {@code nowMs}. */
    CompletableFuture<WindowCount> windowCount(String key, String ruleId, long windowMs, long nowMs);

    /** Cost the region's pods admitted for one rule and key in the usage window that starts at {@code windowStart} (s); 0 when none. */
    CompletableFuture<Long> admitted(String ruleId, String key, long windowStart);

    /** Cost the region's shadow rules would have denied for one rule in the usage window that starts at {@code windowStart} (s); 0 when none. */
    CompletableFuture<Long> shadowDenied(String ruleId, long windowStart);

    /**
     * Cost the region's pods denied by one rule at {@code version} ({@code shadow}: would have denied, in shadow mode) in the
     * usage window that starts at {@code windowStart} (s); 0 when none.
     */
    CompletableFuture<Long> denied(String ruleId, long version, boolean shadow, long windowStart);

    /**
     * One rule's sampled checks in one usage window, {@link dev.tollgate.store.key.UsageKeys#checks}'s hash as it
     * stands (field to value); empty when the pods recorded none.
     */
    CompletableFuture<Map<String, String>> checks(String ruleId, long windowStart);

    /**
     * Every rule and key's admitted cost in one usage window, handed to {@code shards} one shard's hash at a
     * time as each is read (one call at a time, on the store's threads; read it with
     * {@link UsageWindow#forEach}), so the window is never held whole. Answers the fields read; fails unless
     * every shard was read, and then some shards may have been handed over already: the caller discards them.
     */
    CompletableFuture<Long> usageWindow(long windowStart, Consumer<Map<String, String>> shards);

    /**
     * The top hot keys and slots each of the region's pods published ({@code hot_keys_publish.lua}), with the pods
     * its registry holds, in one read of the registry and one MGET of the reports (they share its slot).
     */
    CompletableFuture<FleetHotKeys> hotKeys(String region);
}
