package dev.tollgate.limiter.check;

import dev.tollgate.common.rule.Rule;
import dev.tollgate.store.CounterStore;
import dev.tollgate.store.key.RedisKeys;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Readies what the first check on each of the store's shards would otherwise do within its deadline: it builds
 * the shard's breaker with its meters, and runs a few script calls of a rule of its own through the store stage's
 * call path, each on a key of its own in the shard ({@code rl:{tollgate-prime-<n>}:tollgate-prime}, gone within
 * seconds), which links that code. On a cold JVM this took more than the whole deadline, so a just-started pod's
 * first check on a shard failed open though the store answered. It runs beside the check path, not through it:
 * nothing of it reaches the per-rule, decision, fail-mode or deadline metrics, nor the breakers' counts, whether
 * it succeeds or not; its store calls are counted as what they are.
 */
final class Priming {

    /** What priming spends from: a rule of its own, on keys of its own. */
    private static final Rule PRIMING = Rule.tokenBucket("tollgate-prime", "tollgate", 1_000, 1_000);
    private static final int CALLS_PER_SHARD = 3;
    static final Duration WAIT = Duration.ofSeconds(2);

    private final CounterStore store;
    private final StoreStage stage;
    private volatile boolean done;

    Priming(CounterStore store, StoreStage stage) {
        this.store = store;
        this.stage = stage;
    }

    /** Waits at most {@link #WAIT}; a shard that does not answer now, or appears later, is readied by its first check. */
    void run() {
        Map<String, Integer> left = new HashMap<>();
        for (String shard : store.shards()) {
            left.put(shard, CALLS_PER_SHARD);
        }
        Map<String, CompletableFuture<?>> calls = new HashMap<>();
        for (int i = 0; !left.isEmpty() && i < 100_000; i++) {
            String key = PRIMING.id() + "-" + i;
            String shard = store.shardOf(RedisKeys.hashTag(key));
            Integer wanted = left.get(shard);
            if (wanted == null) {
                continue;
            }
            if (wanted == 1) {
                left.remove(shard);
            } else {
                left.put(shard, wanted - 1);
            }
            KeyGroup group = new KeyGroup(new KeyGroup.Id(key, false));
            group.add(PRIMING, 1, 1, 0);
            // one after the other on a shard, as the first checks of a pod would come
            CompletableFuture<?> before = calls.getOrDefault(shard, CompletableFuture.completedFuture(null));
            calls.put(shard, before.thenCompose(previous -> stage.prime(group, WAIT)));
        }
        try {
            CompletableFuture.allOf(calls.values().toArray(CompletableFuture[]::new)).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // a shard that did not answer now is readied by its first check
        } finally {
            done = true;
        }
    }

    boolean done() {
        return done;
    }
}
