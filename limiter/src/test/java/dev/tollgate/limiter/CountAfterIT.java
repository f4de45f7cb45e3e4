package dev.tollgate.limiter;

import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.rule.Counting;
import dev.tollgate.common.rule.FailMode;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.limiter.after.Admission;
import dev.tollgate.limiter.after.CountAfter;
import dev.tollgate.limiter.after.CountAfterSettings;
import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.limiter.rules.StaticRuleBook;
import dev.tollgate.store.CounterStore;
import dev.tollgate.store.LuaScript;
import dev.tollgate.store.RedisCounterStore;
import dev.tollgate.store.RedisStoreSettings;
import dev.tollgate.store.key.RedisKeys;
import dev.tollgate.store.script.CountAfterCall;
import dev.tollgate.store.script.FixedWindows;
import dev.tollgate.store.script.ScriptCall;
import dev.tollgate.store.script.Spend;
import dev.tollgate.store.script.SpendCall;
import dev.tollgate.testsupport.redis.Node;
import dev.tollgate.testsupport.redis.RedisCluster;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Count-after rules on a real Redis Cluster: two engines as two pods sharing it, a burst over the limit admitted
 * within the stated bound at a few store calls per thousand requests, the fail modes when a primary is frozen
 * (SIGSTOP) or killed, and a flush that times out resent and counted exactly once.
 */
class CountAfterIT {

    private static final Match EDGE = new Match(null, "/");
    private static final Duration FLUSH = Duration.ofMillis(100);
    /** Generous for a shared 2-core machine; the production default is 5 ms. */
    private static final Duration TIMEOUT = Duration.ofMillis(100);

    /** 200/s, burst 400: an allowance of 20 per pod per flush answer, so a bound of 40 per pod over the limit. */
    private final Rule flood = Rule.tokenBucket("flood-ip", "edge", 200, 400).withMatch(EDGE).withCounting(Counting.AFTER);
    private final Rule guarded = Rule.tokenBucket("guarded-ip", "edge", 200, 400).withMatch(EDGE).withCounting(Counting.AFTER)
            .withFailMode(FailMode.CLOSED);

    @Test
    void twoPodsFloodingOneKeyAdmitNoMoreThanTheLimitAndTheBoundAtAFewCallsPerThousandRequests() throws Exception {
        try (RedisCounterStore redisA = connect(RedisCluster.shared());
             RedisCounterStore redisB = connect(RedisCluster.shared())) {
            AtomicLong storeCalls = new AtomicLong();
            Limiter podA = limiter(counting(redisA, storeCalls), new LimiterMetrics(new SimpleMeterRegistry()));
            Limiter podB = limiter(counting(redisB, storeCalls), new LimiterMetrics(new SimpleMeterRegistry()));
            String key = "ip-" + System.nanoTime();
            AtomicBoolean running = new AtomicBoolean(true);
            AtomicLong admitted = new AtomicLong();
            AtomicLong requests = new AtomicLong();
            ExecutorService clients = Executors.newFixedThreadPool(4);
            List<Future<?>> load = new ArrayList<>();
            long started = System.nanoTime();
            for (int c = 0; c < 4; c++) {
                Limiter pod = c % 2 == 0 ? podA : podB;
                load.add(clients.submit(() -> {
                    while (running.get()) {
                        requests.incrementAndGet();
                        if (check(pod, "flood-ip", key)) {
                            admitted.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            Thread.sleep(2_000);
            running.set(false);
            for (Future<?> f : load) {
                f.get(10, TimeUnit.SECONDS);
            }
            double elapsedS = (System.nanoTime() - started) / 1e9;
            clients.shutdown();
            podA.close();
            podB.close();

            long limit = 400 + (long) Math.ceil(200 * elapsedS);
            long bound = 2 * CountAfterSettings.of(FLUSH).overshootBoundPerPod(200, 1);
            double callsPerRequest = (double) storeCalls.get() / requests.get();
            System.out.printf("count after, 2 pods, one key: %d requests in %.2f s, %d admitted (limit %d, bound %d over), %d store calls"
                    + " (%.4f per request)%n", requests.get(), elapsedS, admitted.get(), limit, bound, storeCalls.get(), callsPerRequest);
            assertThat(requests.get()).as("a flood well over the limit").isGreaterThan(4 * limit);
            assertThat(admitted.get()).isGreaterThanOrEqualTo(400).isLessThanOrEqualTo(limit + bound);
            assertThat(callsPerRequest).isLessThan(0.05);
        }
    }

    @Test
    void aFrozenPrimaryFailsTheClosedRuleAfterThreeFlushIntervalsAndTheOpenOneAdmitsItsAllowanceThenItsFallback() throws Exception {
        try (RedisCluster cluster = RedisCluster.builder().nodeTimeoutMs(15_000).start();
             RedisCounterStore store = connect(cluster)) {
            Limiter pod = limiter(store, new LimiterMetrics(new SimpleMeterRegistry()));
            Node victim = cluster.primaries().get(0);
            String onVictim = keyOn(cluster, victim);
            String elsewhere = keyOn(cluster, cluster.primaries().get(1));
            awaitFlushed(pod, onVictim);
            awaitFlushed(pod, elsewhere);

            victim.freeze();
            try {
                long frozenAt = System.nanoTime();
                // the pod itself says no, from its failed flushes, with no store call: not an inline call's timeout
                await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(5)).until(() -> failedOnFlushes(pod, onVictim));
                long closedAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - frozenAt);
                assertThat(closedAfterMs).as("at least three failed flush intervals").isGreaterThanOrEqualTo(300);
                assertThat(outcome(pod, "guarded-ip", elsewhere)).as("another shard's keys still pass").isInstanceOf(Outcome.Answered.class);
                assertThat(check(pod, "flood-ip", onVictim)).as("the fail-open rule on the frozen shard admits").isTrue();
            } finally {
                victim.unfreeze();
            }
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                    .until(() -> outcome(pod, "guarded-ip", onVictim) instanceof Outcome.Answered answered && answered.response().allowed());
            pod.close();
        }
    }

    @Test
    void aKilledPrimaryFailsTheClosedRuleAndTheOpenOneKeepsAdmitting() throws Exception {
        try (RedisCluster cluster = RedisCluster.builder().nodeTimeoutMs(15_000).start();
             RedisCounterStore store = connect(cluster)) {
            LimiterMetrics metrics = new LimiterMetrics(new SimpleMeterRegistry());
            Limiter pod = limiter(store, metrics);
            Node victim = cluster.primaries().get(0);
            String onVictim = keyOn(cluster, victim);
            awaitFlushed(pod, onVictim);

            victim.kill();
            await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(5)).until(() -> failedOnFlushes(pod, onVictim));
            long admitted = 0;
            for (int i = 0; i < 200; i++) {
                if (check(pod, "flood-ip", onVictim)) {
                    admitted++;
                }
            }
            assertThat(admitted).as("fail open: the pod's allowance, then the fallback bucket").isPositive();
            long killedAt = System.nanoTime();
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
                    .until(() -> metrics.registry().counter(LimiterMetrics.COUNT_AFTER_DROPPED).count() > 0);
            assertThat(Duration.ofNanos(System.nanoTime() - killedAt)).as("the failed calls were resent until their counts were"
                    + " five flush timeouts old, then dropped").isGreaterThanOrEqualTo(CountAfterSettings.of(FLUSH).resendFor().minusSeconds(2));
            pod.close();
        }
    }

    @Test
    void aFlushThatTimesOutIsResentAndTheStoreCountsExactlyWhatThePodAdmitted() throws Exception {
        try (RedisCluster cluster = RedisCluster.builder().nodeTimeoutMs(15_000).start();
             RedisCounterStore store = connect(cluster)) {
            assertThat(store.awaitConnected(Duration.ofSeconds(10))).isTrue();
            LimiterMetrics metrics = new LimiterMetrics(new SimpleMeterRegistry());
            // a day's quota: a count is exact (no refill), and 1,000,000 a day over a 1 s "flush" is an allowance of 12
            Rule quota = Rule.fixedWindow("quota-ip", "edge", 1_000_000, 86_400).withMatch(EDGE).withCounting(Counting.AFTER);
            Spend spend = new Spend(quota, 1.0, 1);
            Duration flushTimeout = Duration.ofMillis(400);
            CountAfter pod = new CountAfter(store, CountAfterSettings.of(Duration.ofSeconds(1), 1_000, flushTimeout), System::nanoTime,
                    Clock.systemUTC(), metrics, false);
            Node victim = cluster.primaries().get(0);
            List<String> keys = keysOn(cluster, victim, 10, "q" + System.nanoTime() + "_");
            long admitted = admitAll(pod, keys, spend);
            pod.flush().join();
            assertThat(failedFlushes(metrics)).as("a warm shard answers").isZero();

            admitted += admitAll(pod, keys, spend);
            victim.freeze();
            try {
                long frozenAt = System.nanoTime();
                ScriptCall check = SpendCall.of(keys.get(0), List.of(new Spend(flood, 1.0, 1)), 1, 1, System.currentTimeMillis());
                CompletableFuture<Long> checkFailedMs = store.run(check.script(), check.keys(), check.args())
                        .handle((reply, error) -> TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - frozenAt));
                pod.flush().join();
                long flushFailedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - frozenAt);
                assertThat(flushFailedMs).as("the flush's own timeout, not the check's").isGreaterThanOrEqualTo(flushTimeout.toMillis() - 20);
                assertThat(checkFailedMs.join()).as("the check's call keeps the command timeout (%s)", TIMEOUT)
                        .isLessThan(flushTimeout.toMillis() - 100);
                assertThat(failedFlushes(metrics)).isEqualTo(1);
                // the failed answer restarted the allowance: the pod admits on while the shard is frozen
                admitted += admitAll(pod, keys, spend);
                Thread.sleep(200);
            } finally {
                // the frozen call is still in the shard's socket: it runs now, though the pod gave up on it
                victim.unfreeze();
            }
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> {
                pod.flush().join();
                return resent(metrics, true) + resent(metrics, false) >= 1 && pod.held() == 0;
            });

            assertThat(resent(metrics, true)).as("the store had counted the call that timed out: its resend counted nothing").isEqualTo(1);
            assertThat(metrics.registry().counter(LimiterMetrics.COUNT_AFTER_DROPPED).count()).isZero();
            long counted = 0;
            long nowMs = System.currentTimeMillis();
            for (String key : keys) {
                String value = store.connection().sync().get(FixedWindows.key(key, quota.id(), 86_400_000L, nowMs));
                counted += value == null ? 0 : Long.parseLong(value);
            }
            assertThat(counted).as("no count lost, none counted twice").isEqualTo(admitted);
            pod.close();
        }
    }

    @Test
    void aFullChunkOfAFlushRunsInAFewMillisecondsOfTheShardsTime() {
        RedisCluster cluster = RedisCluster.shared();
        try (RedisCounterStore store = connect(cluster)) {
            assertThat(store.awaitConnected(Duration.ofSeconds(10))).isTrue();
            Node primary = cluster.primaries().get(0);
            int chunk = CountAfterSettings.DEFAULT_MAX_KEYS_PER_CALL;
            List<CountAfterCall.Entry> entries = new ArrayList<>();
            for (String key : keysOn(cluster, primary, chunk, "chunk" + System.nanoTime() + "_")) {
                entries.add(new CountAfterCall.Entry(key, new Spend(flood, 1.0, 1), 3));
            }
            var node = store.connection().getConnection(primary.host(), primary.port()).sync();
            long[] before = evalshaStats(node.info("commandstats"));
            int calls = 20;
            for (int i = 0; i < calls; i++) {
                ScriptCall call = CountAfterCall.of(entries, System.currentTimeMillis(), "chunk-test:" + i, 10_000);
                store.run(call.script(), call.keys(), call.args(), Duration.ofSeconds(5)).join();
            }
            long[] after = evalshaStats(node.info("commandstats"));
            double usPerCall = (double) (after[1] - before[1]) / (after[0] - before[0]);
            System.out.printf("count after: one flush call of %d keys runs %.0f µs on its shard (%d calls)%n", chunk, usPerCall, calls);
            assertThat(after[0] - before[0]).as("every call ran by its SHA").isGreaterThanOrEqualTo(calls - 1);
            assertThat(usPerCall).as("a chunk stalls the shard's checks for a few ms at most").isLessThan(20_000);
        }
    }

    /** {calls, usec} of EVALSHA in an INFO commandstats reply. */
    private static long[] evalshaStats(String info) {
        java.util.regex.Matcher stats = java.util.regex.Pattern.compile("cmdstat_evalsha:calls=(\\d+),usec=(\\d+)").matcher(info);
        return stats.find() ? new long[] {Long.parseLong(stats.group(1)), Long.parseLong(stats.group(2))} : new long[] {0, 0};
    }

    /** Admits one request a key, round after round, until each key's allowance until the next answer is spent. */
    private static long admitAll(CountAfter pod, List<String> keys, Spend spend) {
        long admitted = 0;
        boolean any = true;
        while (any) {
            any = false;
            for (String key : keys) {
                if (pod.admit(key, List.of(spend), false) instanceof Admission.Admitted) {
                    admitted++;
                    any = true;
                }
            }
        }
        return admitted;
    }

    private static long failedFlushes(LimiterMetrics metrics) {
        return metrics.registry().find(LimiterMetrics.STORE_CALLS).tag("script", "count_after").timers().stream()
                .filter(timer -> !"ok".equals(timer.getId().getTag("outcome"))).mapToLong(timer -> timer.count()).sum();
    }

    private static long resent(LimiterMetrics metrics, boolean applied) {
        var counter = metrics.registry().find(LimiterMetrics.COUNT_AFTER_RESENT).tag("applied", Boolean.toString(applied)).counter();
        return counter == null ? 0 : (long) counter.count();
    }

    private static boolean failedOnFlushes(Limiter pod, String key) throws Exception {
        return outcome(pod, "guarded-ip", key) instanceof Outcome.FailedClosed closed && closed.reason().equals("count_after_flushes_failing");
    }

    /** Checks until a flush has answered for the key on its shard (its connection and script are warm). */
    private static void awaitFlushed(Limiter pod, String key) {
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() -> {
            check(pod, "flood-ip", key);
            check(pod, "guarded-ip", key);
            Thread.sleep(250);
            return outcome(pod, "guarded-ip", key) instanceof Outcome.Answered answered && answered.response().allowed();
        });
    }

    private Limiter limiter(CounterStore store, LimiterMetrics metrics) {
        return Limiter.builder(new StaticRuleBook(List.of(flood, guarded)), store)
                .settings(LimiterSettings.DEFAULTS.withDeadline(TIMEOUT.multipliedBy(3)).withCountAfter(CountAfterSettings.of(FLUSH)))
                .metrics(metrics)
                .livePods(() -> 2)
                .build();
    }

    private static boolean check(Limiter pod, String rule, String key) throws Exception {
        return outcome(pod, rule, key) instanceof Outcome.Answered answered && answered.response().allowed();
    }

    private static Outcome outcome(Limiter pod, String rule, String key) throws Exception {
        return pod.check(new CheckRequest("edge", List.of(CheckEntry.of(rule, key, 1)))).get(5, TimeUnit.SECONDS);
    }

    private static CounterStore counting(RedisCounterStore store, AtomicLong calls) {
        return new CounterStore() {
            @Override
            public CompletableFuture<List<Long>> run(LuaScript script, List<String> keys, List<String> args) {
                calls.incrementAndGet();
                return store.run(script, keys, args);
            }

            @Override
            public CompletableFuture<List<Long>> run(LuaScript script, List<String> keys, List<String> args, Duration timeout) {
                calls.incrementAndGet();
                return store.run(script, keys, args, timeout);
            }

            @Override
            public String shardOf(String redisKey) {
                return store.shardOf(redisKey);
            }

            @Override
            public List<String> shards() {
                return store.shards();
            }
        };
    }

    private static RedisCounterStore connect(RedisCluster cluster) {
        RedisStoreSettings settings = RedisStoreSettings.of(cluster.seedUris().stream()
                .map(uri -> uri.replaceFirst("redis://[^@]*@", "redis://")).toList()).withCommandTimeout(TIMEOUT);
        return RedisCounterStore.connect(cluster.password().isPresent() ? settings.withCredentials(null, cluster.password().get()) : settings);
    }

    private static String keyOn(RedisCluster cluster, Node primary) {
        return keysOn(cluster, primary, 1, "ip_").get(0);
    }

    private static List<String> keysOn(RedisCluster cluster, Node primary, int count, String prefix) {
        List<String> keys = new ArrayList<>();
        for (int i = 0; keys.size() < count; i++) {
            String key = prefix + i;
            if (cluster.primaryForKey(RedisKeys.hashTag(key)).port() == primary.port()) {
                keys.add(key);
            }
        }
        return keys;
    }
}
