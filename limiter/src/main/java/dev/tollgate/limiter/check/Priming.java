package dev.tollgate.limiter.check;

import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.limiter.LimiterSettings;
import dev.tollgate.limiter.after.CountAfter;
import dev.tollgate.limiter.breaker.FallbackBuckets;
import dev.tollgate.limiter.hotkeys.HotKeys;
import dev.tollgate.limiter.breaker.ShardBreakers;
import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.limiter.rules.RuleBook;
import dev.tollgate.limiter.usage.UsageSink;
import dev.tollgate.store.CounterStore;
import dev.tollgate.store.key.RedisKeys;

import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * Readies what the first check on each of the store's shards would otherwise do within its deadline: it builds
 * the shard's breaker with its meters, and runs a few checks of a rule of its own, each on a key of its own in the
 * shard ({@code rl:{tollgate-prime-<n>}:tollgate-prime}, gone within seconds), through every stage a check passes
 * (grouping, the local answers, the store behind a breaker, the verdicts), which loads and links that code. On a
 * cold JVM this took more than the whole deadline, so a just-started pod's first check on a shard failed open
 * though the store answered.
 *
 * <p>The checks run through stages of its own, not the engine's: instances of the same classes, with their own
 * breakers, local answers and fallback buckets, and metrics that record nothing. So the check path holds no "is
 * this priming?" test, and nothing of priming reaches the per-rule, decision, fail-mode or deadline metrics, nor
 * the traffic's breakers, whether it succeeds or not: a slow priming call on a cold JVM must neither open a shard's
 * breaker nor close one the traffic opened. Its store calls are counted as what they are.
 */
final class Priming {

    /** What priming spends from: a rule of its own, on keys of its own. */
    private static final Rule PRIMING = Rule.tokenBucket("tollgate-prime", "tollgate", 1_000, 1_000);
    /** Only its own entries are grouped by it. */
    private static final RuleBook RULES = (domain, rule, key) -> PRIMING;
    private static final int CALLS_PER_SHARD = 3;
    static final Duration WAIT = Duration.ofSeconds(2);

    private final CounterStore store;
    private final ShardBreakers breakers;
    private final LimiterMetrics quiet = LimiterMetrics.noop();
    private final LongSupplier nanoTime;
    private final LocalStage local;
    private final StoreStage stage;
    private final Verdicts verdicts;
    private volatile boolean done;

    /**
     * @param breakers the engine's breakers, which priming builds (with their meters) but never counts in
     * @param metrics  the engine's metrics, which see priming's store calls and nothing else of it
     */
    Priming(CounterStore store, ShardBreakers breakers, LimiterSettings settings, LimiterMetrics metrics, Clock clock,
            LongSupplier nanoTime, IntSupplier livePods, String podId) {
        this.store = store;
        this.breakers = breakers;
        this.nanoTime = nanoTime;
        this.local = new LocalStage(settings.optimizations(), nanoTime, quiet, podId);
        FailModes failModes = new FailModes(new FallbackBuckets(nanoTime), livePods, quiet);
        ShardCall calls = new ShardCall(store, new ShardBreakers(settings.breaker(), clock, quiet.registry()), local, metrics, clock,
                livePods, new HotKeys(nanoTime));
        this.stage = new StoreStage(calls, local, failModes, metrics, nanoTime);
        // priming's rule counts inline: its count-after stage is never asked, and never flushes
        AfterStage after = new AfterStage(new CountAfter(store, settings.countAfter(), nanoTime, clock, quiet, false), failModes, quiet);
        this.verdicts = new Verdicts(local, after, failModes, store, quiet, UsageSink.NONE);
    }

    /** Waits at most {@link #WAIT}; a shard that does not answer now, or appears later, is readied by its first check. */
    void run() {
        Map<String, Integer> left = new HashMap<>();
        for (String shard : store.shards()) {
            left.put(shard, CALLS_PER_SHARD);
            breakers.forShard(shard);
        }
        Map<String, CompletableFuture<?>> checks = new HashMap<>();
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
            // one after the other on a shard, as the first checks of a pod would come
            CompletableFuture<?> before = checks.getOrDefault(shard, CompletableFuture.completedFuture(null));
            checks.put(shard, before.thenCompose(previous -> check(key)));
        }
        try {
            CompletableFuture.allOf(checks.values().toArray(CompletableFuture[]::new)).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
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

    /** One check of the priming rule on the key, through the same stages as a client's. */
    private CompletableFuture<?> check(String key) {
        List<CheckEntry> entries = List.of(CheckEntry.of(PRIMING.id(), key, 1));
        Grouping grouping = Grouping.of(PRIMING.domain(), entries, RULES, quiet);
        KeyGroup group = grouping.groups().get(0);
        long deadline = nanoTime.getAsLong() + WAIT.toNanos();
        return local.answer(group).map(CompletableFuture::completedFuture).orElseGet(() -> stage.answer(group, deadline))
                .thenApply(answer -> verdicts.write(quiet.startCheck(), entries, grouping, new GroupAnswer[] {answer}));
    }
}
