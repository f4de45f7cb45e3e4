package dev.tollgate.bench.fleet;

import dev.tollgate.bench.load.Timeline;
import dev.tollgate.limiter.store.CounterStore;
import dev.tollgate.limiter.store.LuaScript;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;

/**
 * The engine's store port with a counter in front: every script call is one round trip to the store,
 * counted exactly here (rather than read back from metrics) and filed into the current run's timeline
 * by the time it was made and the key it was for.
 */
public final class CountingStore implements CounterStore {

    private final CounterStore delegate;
    private final LongAdder calls = new LongAdder();
    private volatile Timeline timeline;

    public CountingStore(CounterStore delegate) {
        this.delegate = delegate;
    }

    /** Where calls from now on are filed; null files them nowhere (only the total counts). */
    public void recordInto(Timeline current) {
        this.timeline = current;
    }

    public long calls() {
        return calls.sum();
    }

    @Override
    public CompletableFuture<List<Long>> run(LuaScript script, List<String> keys, List<String> args) {
        calls.increment();
        Timeline current = timeline;
        if (current != null) {
            current.storeCall(keys.isEmpty() ? "" : keys.get(0), System.nanoTime());
        }
        return delegate.run(script, keys, args);
    }

    @Override
    public String shardOf(String redisKey) {
        return delegate.shardOf(redisKey);
    }
}
