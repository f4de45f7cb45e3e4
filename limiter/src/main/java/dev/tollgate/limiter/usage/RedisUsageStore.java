package dev.tollgate.limiter.usage;

import dev.tollgate.store.ClientSettings;
import dev.tollgate.store.LuaScript;
import dev.tollgate.store.RedisCounterStore;
import dev.tollgate.store.RedisStoreSettings;

import io.lettuce.core.cluster.RedisClusterClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Writes usage to the region's Redis Cluster with {@code usage_add.lua}: one script call per window
 * hash carries many fields, and all calls of a flush are in flight at once (pipelined).
 *
 * <p>It runs on a client and connection of its own, never the check path's: a flush of a few thousand
 * fields queued on the same connection would delay the checks' scripts behind it.
 */
public final class RedisUsageStore implements UsageStore {

    static final LuaScript USAGE_ADD = LuaScript.load("usage_add");
    /** Fields per script call: keeps one call to well under a millisecond of Redis time. */
    static final int FIELDS_PER_CALL = 256;

    private final RedisCounterStore redis;
    private final Runnable afterClose;

    private RedisUsageStore(RedisCounterStore redis, Runnable afterClose) {
        this.redis = redis;
        this.afterClose = afterClose;
    }

    /** Connects in the background, as the counter store does: until then every flush fails and is counted. */
    public static RedisUsageStore connect(RedisStoreSettings settings) {
        return new RedisUsageStore(RedisCounterStore.connect(settings), () -> { });
    }

    /**
     * On a client of its own that someone else built (see
     * {@link RedisCounterStore#start(RedisClusterClient, List, ClientSettings)}), with the flush's timeout.
     *
     * @param releaseClient run once the store is closed: the client's owner lets it go
     */
    public static RedisUsageStore start(RedisClusterClient client, List<String> nodes, Duration flushTimeout, Runnable releaseClient) {
        return new RedisUsageStore(RedisCounterStore.start(client, nodes, new ClientSettings(flushTimeout, null)), releaseClient);
    }

    @Override
    public CompletableFuture<Void> add(String window, Map<String, Long> counts, Duration ttl) {
        String ttlMs = Long.toString(ttl.toMillis());
        List<CompletableFuture<?>> calls = new ArrayList<>(1 + counts.size() / FIELDS_PER_CALL);
        List<String> args = new ArrayList<>(1 + 2 * Math.min(counts.size(), FIELDS_PER_CALL));
        args.add(ttlMs);
        for (Map.Entry<String, Long> count : counts.entrySet()) {
            args.add(count.getKey());
            args.add(Long.toString(count.getValue()));
            if (args.size() > 2 * FIELDS_PER_CALL) {
                calls.add(redis.run(USAGE_ADD, List.of(window), args));
                args = new ArrayList<>(1 + 2 * FIELDS_PER_CALL);
                args.add(ttlMs);
            }
        }
        if (args.size() > 1) {
            calls.add(redis.run(USAGE_ADD, List.of(window), args));
        }
        return CompletableFuture.allOf(calls.toArray(CompletableFuture<?>[]::new));
    }

    @Override
    public void close() {
        try {
            redis.close();
        } finally {
            afterClose.run();
        }
    }
}
