package dev.tollgate.bench.fleet;

import dev.tollgate.bench.load.Timeline;
import dev.tollgate.store.CounterStore;
import dev.tollgate.store.LuaScript;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The engine's store port with a counter in front: every script call is one round trip to the store,
 * counted exactly here (rather than read back from metrics) and filed into the current run's timeline
 * by the time it was made and the key it was for.
 */
public final class CountingStore implements CounterStore {

    private final CounterStore delegate;
    private final LongAdder calls = new LongAdder();
    private final Map<String, LongAdder> byScript = new ConcurrentHashMap<>();
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

    /** Calls of one script since the store was made ({@code spend}, {@code refund}, ...). */
    public long calls(String script) {
        LongAdder counted = byScript.get(script);
        return counted == null ? 0 : counted.sum();
    }

    @Override
    public CompletableFuture<List<Long>> run(LuaScript script, List<String> keys, List<String> args) {
        count(script, keys);
        return delegate.run(script, keys, args);
    }

    @Override
    public CompletableFuture<List<Long>> run(LuaScript script, List<String> keys, List<String> args, Duration timeout) {
        count(script, keys);
        return delegate.run(script, keys, args, timeout);
    }

    private void count(LuaScript script, List<String> keys) {
        calls.increment();
        byScript.computeIfAbsent(script.name(), name -> new LongAdder()).increment();
        Timeline current = timeline;
        if (current != null) {
            current.storeCall(keys.isEmpty() ? "" : keys.get(0), System.nanoTime());
        }
    }

    @Override
    public String shardOf(String redisKey) {
        return delegate.shardOf(redisKey);
    }
}
