package dev.tollgate.limiter;

import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.rule.Counting;
import dev.tollgate.common.rule.FailMode;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.limiter.after.CountAfterSettings;
import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.limiter.rules.StaticRuleBook;
import dev.tollgate.store.CounterStore;
import dev.tollgate.store.LuaScript;
import dev.tollgate.store.RedisCounterStore;
import dev.tollgate.store.RedisStoreSettings;
import dev.tollgate.store.key.RedisKeys;
import dev.tollgate.testsupport.redis.Node;
import dev.tollgate.testsupport.redis.RedisCluster;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

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
 * within the stated bound at a few store calls per thousand requests, and the fail modes when a primary is frozen
 * (SIGSTOP) or killed.
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
            assertThat(metrics.registry().counter(LimiterMetrics.COUNT_AFTER_DROPPED).count()).as("the failed flushes' counts").isPositive();
            pod.close();
        }
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
        for (int i = 0; ; i++) {
            String key = "ip_" + i;
            if (cluster.primaryForKey(RedisKeys.hashTag(key)).port() == primary.port()) {
                return key;
            }
        }
    }
}
