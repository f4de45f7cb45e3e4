package dev.tollgate.store;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The one thing the engine needs from the counter store: run a script atomically over keys that
 * share one slot, and answer its integer reply. Failures complete the future with a
 * {@link StoreException}; the engine never retries a spend on its own.
 */
public interface CounterStore extends AutoCloseable {

    /**
     * The store may read {@code keys} and {@code args} after this returns (the Redis store writes them as the connection sends
     * the command, and again after a redirect): hand it lists no one changes afterwards.
     */
    CompletableFuture<List<Long>> run(LuaScript script, List<String> keys, List<String> args);

    /**
     * As {@link #run(LuaScript, List, List)}, held to {@code timeout} instead of the store's command timeout: for a
     * call off the check's path that carries many keys (a count-after flush), which the check's short timeout would
     * fail while the store is well. A store whose calls have no timeout runs it as any other; a wrapper passes it on.
     */
    default CompletableFuture<List<Long>> run(LuaScript script, List<String> keys, List<String> args, Duration timeout) {
        return run(script, keys, args);
    }

    /**
     * The failure domain a Redis key lives in: the id of the primary that owns its slot now. A pod keeps
     * one breaker per shard, so a slow shard never slows checks on the others.
     */
    default String shardOf(String redisKey) {
        return "store";
    }

    /** Every shard the store holds now (as {@link #shardOf} names them): none while it is not connected. */
    default List<String> shards() {
        return List.of(shardOf(""));
    }

    @Override
    default void close() {
    }
}
