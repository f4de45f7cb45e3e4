package dev.tollgate.limiter;

import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.common.rule.Limit;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.store.script.GroupReply;
import dev.tollgate.store.script.ScriptCall;
import dev.tollgate.store.script.Spend;
import dev.tollgate.store.script.SpendCall;
import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.limiter.rules.StaticRuleBook;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static dev.tollgate.limiter.LimiterFixture.uniqueKey;
import static org.assertj.core.api.Assertions.assertThat;

/** Leases, the deny cache and the local-first bucket on a real Redis Cluster: fewer store calls, same limits. */
class OptimizationsIT {

    private static final Match ENTERPRISE = new Match("enterprise", null);
    @RegisterExtension
    static final LimiterFixture fixture = new LimiterFixture();

    @ParameterizedTest(name = "rate {0}, burst {1}, {2} pods: lease of {3}")
    @CsvSource({
            "10, 20, 50, 1",          // Free: a full bucket of 20 over 50 pods leases 1
            "100, 200, 50, 2",        // Growth: 2
            "1000, 2000, 50, 20",     // Enterprise: 20
            "25000, 50000, 50, 50"})  // the hot key's override: min(50, 50,000 ÷ 100)
    void theScriptGrantsTheDesignsLeaseForAFullBucket(int rate, int burst, int pods, long lease) {
        Rule rule = Rule.tokenBucket("r", "api", rate, burst).withMatch(ENTERPRISE);
        ScriptCall call = SpendCall.of(uniqueKey("acct"), List.of(new Spend(rule, 1.0, 1)), 50, pods, 0);
        GroupReply reply = GroupReply.parse(fixture.store.run(call.script(), call.keys(), call.args()).join(), 1);
        assertThat(reply.granted()).isEqualTo(lease);
        assertThat(reply.remaining()[0]).as("a lease is pre-paid").isEqualTo(burst - lease);
    }

    @Test
    void aLeaseShrinksToOneNearTheLimit() {
        Rule rule = Rule.of("r", "api", new Limit.TokenBucket(1, 3_600, 2_000)).withMatch(ENTERPRISE);
        String key = uniqueKey("acct");
        ScriptCall drain = SpendCall.of(key, List.of(new Spend(rule.withMaxCost(1_950), 1.0, 1_950)), 1, 1, 0);
        fixture.store.run(drain.script(), drain.keys(), drain.args()).join();
        ScriptCall call = SpendCall.of(key, List.of(new Spend(rule, 1.0, 1)), 50, 50, 0);
        assertThat(GroupReply.parse(fixture.store.run(call.script(), call.keys(), call.args()).join(), 1).granted()).isEqualTo(1);
    }

    @Test
    void theDenyQueueSpacesContendingPodsOneTokenApart() {
        // 10/s: a token every 100 ms. The pod that took the last token holds off until the next one; five
        // pods denied after it are told 200, 300, ... 600 ms, so they come back one per token instead of
        // all at once. Each client is still told the true retry
        Rule rule = Rule.tokenBucket("r", "api", 10, 20).withMatch(ENTERPRISE);
        String key = uniqueKey("acct");
        GroupReply last = null;
        for (int i = 0; i < 20; i++) {
            last = spend(key, rule, 1);
            assertThat(last.allowed()).isTrue();
        }
        long previousHold = last.holdMs();
        assertThat(previousHold).isBetween(80L, 100L);
        for (int pod = 0; pod < 5; pod++) {
            GroupReply denied = spend(key, rule, 1);
            assertThat(denied.allowed()).isFalse();
            assertThat(denied.retryMs()).isBetween(1L, 100L);
            assertThat(denied.holdMs() - previousHold).as("one token's refill after the pod before").isBetween(80L, 100L);
            previousHold = denied.holdMs();
        }
        assertThat(previousHold).isBetween(520L, 600L);
    }

    @Test
    void aFastBucketsQueueMovesByMicrosecondsNotWholeMilliseconds() {
        // review L3: at 25,000/s a slot is 40 us; rounded up to 1 ms, twenty pods denied in a row were held
        // 1, 2, ... 20 ms, and the bucket's tokens came out in bursts
        Rule rule = Rule.tokenBucket("r", "api", 25_000, 1).withMatch(ENTERPRISE);
        String key = uniqueKey("acct");
        assertThat(spend(key, rule, 1).allowed()).isTrue();
        long longest = 0;
        for (int pod = 0; pod < 20; pod++) {
            GroupReply reply = spend(key, rule, 1);
            if (!reply.allowed()) {
                longest = Math.max(longest, reply.holdMs());
            }
        }
        assertThat(longest).as("twenty 40 us slots, plus the calls' own time").isLessThanOrEqualTo(3);
    }

    @ParameterizedTest(name = "rate {0}, burst {1}: holds stay within {2} ms")
    @CsvSource({
            "10, 3, 300",      // the bucket fills in 300 ms: holding longer would let tokens overflow
            "10, 100, 1000"})  // at most a second, so a raised limit is seen within it
    void aHoldNeverOutlastsTheBucketFillingNorOneSecond(int rate, int burst, long most) {
        Rule rule = Rule.tokenBucket("r", "api", rate, burst).withMatch(ENTERPRISE);
        String key = uniqueKey("acct");
        spend(key, rule.withMaxCost(burst), burst);
        long longest = 0;
        for (int pod = 0; pod < 20; pod++) {
            GroupReply denied = spend(key, rule, 1);
            assertThat(denied.allowed()).isFalse();
            longest = Math.max(longest, denied.holdMs());
        }
        assertThat(longest).isBetween(most - 60, most);
    }

    @Test
    void theLastTokenComesWithAHoldForTheNextRequest() {
        Rule rule = Rule.tokenBucket("r", "api", 10, 2).withMatch(ENTERPRISE);
        String key = uniqueKey("acct");
        GroupReply first = spend(key, rule, 1);
        assertThat(first.granted()).isEqualTo(1);
        assertThat(first.holdMs()).as("a token is left for the next request").isZero();
        GroupReply last = spend(key, rule, 1);
        assertThat(last.granted()).isEqualTo(1);
        assertThat(last.retryMs()).as("the client was admitted").isZero();
        assertThat(last.holdMs()).as("the next token is 100 ms away").isBetween(1L, 100L);
    }

    @Test
    void aClientOverItsLimitOnTenPodsGetsItsLimitForFewStoreCalls() throws Exception {
        // every pod flooded by the same client: without the deny queue each pod would ask the store once per
        // token interval (10 pods × 50/s); with it the pods take turns
        int rate = 50;
        int burst = 50;
        Rule rule = Rule.tokenBucket("hot", "api", rate, burst).withMatch(ENTERPRISE);
        LimiterMetrics metrics = new LimiterMetrics(new SimpleMeterRegistry());
        List<Limiter> pods = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            pods.add(optimized(metrics, 10, rule));
        }
        String key = uniqueKey("acct");
        long durationMs = 3_000;
        long started = System.nanoTime();
        long admitted = hammer(pods, 10, key, durationMs);
        double elapsed = (System.nanoTime() - started) / 1e9;
        long bound = burst + (long) Math.floor(rate * elapsed);
        System.out.printf("one client on 10 pods: %d admitted, bound %d over %.2f s, %d store calls%n",
                admitted, bound, elapsed, storeCalls(metrics));
        assertThat(admitted).isLessThanOrEqualTo(bound);
        assertThat(admitted).as("holds only ever deny what the bucket would").isGreaterThanOrEqualTo((long) (0.9 * (burst + rate * durationMs / 1000.0)));
        assertThat(storeCalls(metrics)).isLessThanOrEqualTo(3 * admitted);
    }

    @Test
    void anEnterpriseKeyOnOnePodCostsOneStoreCallPerLease() {
        LimiterMetrics metrics = new LimiterMetrics(new SimpleMeterRegistry());
        // Enterprise's burst and pod count; a refill slow enough that the counts below are exact
        Limiter pod = optimized(metrics, 50, Rule.of("enterprise", "api", new Limit.TokenBucket(1_000, 3_600, 2_000)).withMatch(ENTERPRISE));
        String key = uniqueKey("acct");
        for (int i = 0; i < 100; i++) {
            CheckResponse response = check(pod, "enterprise", key);
            assertThat(response.allowed()).isTrue();
            assertThat(response.entries().get(0).remaining()).as("the pod's view, lease included").isEqualTo(1_999 - i);
        }
        // leases of 20, 19, 19, 18, 18, ... shrink as the bucket empties: about one call per 19 checks
        assertThat(storeCalls(metrics)).isBetween(5L, 7L);
        assertThat(metrics.registry().counter(LimiterMetrics.LEASE_HITS).count()).isEqualTo(100 - storeCalls(metrics));
    }

    @Test
    void aClientPastItsLimitCostsOneStoreCallPerRetryInterval() throws InterruptedException {
        LimiterMetrics metrics = new LimiterMetrics(new SimpleMeterRegistry());
        Limiter pod = optimized(metrics, 1, Rule.of("free", "api", new Limit.TokenBucket(1, 10, 5)).withMatch(ENTERPRISE));
        String key = uniqueKey("acct");
        int admitted = 0;
        for (int i = 0; i < 2_000; i++) {
            if (check(pod, "free", key).allowed()) {
                admitted++;
            }
        }
        assertThat(admitted).isEqualTo(5);
        // 5 admitted with leases of 2, 1, 1, 1 plus one deny; then the deny cache answers
        assertThat(storeCalls(metrics)).isLessThanOrEqualTo(6);
        assertThat(metrics.registry().counter(LimiterMetrics.DENY_CACHE_HITS).count()
                + metrics.registry().counter(LimiterMetrics.LOCAL_DROPS).count()).isGreaterThan(1_900);
    }

    @Test
    void aFloodIsCutOnThePodAndBarelyReachesTheStore() {
        LimiterMetrics metrics = new LimiterMetrics(new SimpleMeterRegistry());
        Limiter pod = optimized(metrics, 50, Rule.tokenBucket("free", "api", 10, 20).withMatch(ENTERPRISE));
        String bot = uniqueKey("bot");
        long started = System.nanoTime();
        int checks = 0;
        int admitted = 0;
        while (System.nanoTime() - started < TimeUnit.SECONDS.toNanos(2)) {
            if (check(pod, "free", bot).allowed()) {
                admitted++;
            }
            checks++;
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        System.out.printf("flood: %d checks in %.1f s (%.0f/s), %d admitted, %d store calls%n",
                checks, seconds, checks / seconds, admitted, storeCalls(metrics));
        assertThat(admitted).isLessThanOrEqualTo(20 + (int) Math.ceil(10 * seconds));
        // each admitted request, plus one deny per retry interval (a token every 100 ms at 10/s)
        assertThat(storeCalls(metrics)).as("store calls are bounded by the limit, not by the flood")
                .isLessThanOrEqualTo(admitted + 10L * (long) Math.ceil(seconds) + 5);
        assertThat(checks).isGreaterThan(20 * (int) storeCalls(metrics));
    }

    @Test
    void leasesAcrossFivePodsNeverAdmitMoreThanTheLimit() throws Exception {
        int burst = 400;
        int rate = 200;
        Rule rule = Rule.tokenBucket("hot", "api", rate, burst).withMatch(ENTERPRISE);
        String key = uniqueKey("acct");
        List<Limiter> pods = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            pods.add(optimized(LimiterMetrics.noop(), 5, rule));
        }
        long durationMs = 3_000;
        long started = System.nanoTime();
        long admitted = hammer(pods, 20, key, durationMs);
        double elapsed = (System.nanoTime() - started) / 1e9;
        long bound = burst + (long) Math.floor(rate * elapsed);
        System.out.printf("leases on 5 pods: %d admitted, bound %d over %.2f s%n", admitted, bound, elapsed);
        assertThat(admitted).as("leases are pre-paid: no overshoot").isLessThanOrEqualTo(bound);
        // tokens stranded on expired leases are the price: at most a few percent here
        assertThat(admitted).isGreaterThanOrEqualTo((long) (0.9 * (burst + rate * durationMs / 1000.0)));
    }

    @ParameterizedTest(name = "local {0}, leases {1}, deny cache {2}")
    @CsvSource({"true,true,true", "false,true,false", "true,false,true"})
    void aHotKeyFarOverItsLimitStillGetsItsWholeLimitFromOnePod(boolean localFirst, boolean leases, boolean denyCache) throws Exception {
        // the local-first bucket and the store's bucket run at the same rate in series: without giving back
        // what the store refused, the local one would be empty whenever the store has room
        int burst = 1_000;
        int rate = 1_000;
        Limiter pod = Limiter.builder(new StaticRuleBook(List.of(Rule.tokenBucket("hot", "api", rate, burst).withMatch(ENTERPRISE))), fixture.store)
                .settings(LimiterFixture.SETTINGS.withOptimizations(new Optimizations(localFirst, leases, denyCache, 50, java.time.Duration.ofSeconds(1))))
                .build();
        String key = uniqueKey("hot");
        long durationMs = 2_000;
        long started = System.nanoTime();
        long admitted = hammer(List.of(pod), 8, key, durationMs);
        double elapsed = (System.nanoTime() - started) / 1e9;
        long bound = burst + (long) Math.floor(rate * elapsed);
        System.out.printf("hot key on one pod: %d admitted, bound %d over %.2f s%n", admitted, bound, elapsed);
        assertThat(admitted).isLessThanOrEqualTo(bound);
        assertThat(admitted).isGreaterThanOrEqualTo((long) (0.9 * (burst + rate * durationMs / 1000.0)));
    }

    /** {@code clients} threads checking the "hot" rule on {@code key} as fast as they can, spread over the pods. */
    private static long hammer(List<Limiter> pods, int clients, String key, long durationMs) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(clients);
        AtomicLong admitted = new AtomicLong();
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                Limiter pod = pods.get(c % pods.size());
                running.add(threads.submit(() -> {
                    long until = System.currentTimeMillis() + durationMs;
                    while (System.currentTimeMillis() < until) {
                        if (check(pod, "hot", key).allowed()) {
                            admitted.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdown();
        }
        return admitted.get();
    }

    private static Limiter optimized(LimiterMetrics metrics, int pods, Rule... rules) {
        return Limiter.builder(new StaticRuleBook(List.of(rules)), fixture.store)
                .settings(LimiterFixture.SETTINGS.withOptimizations(Optimizations.ALL))
                .metrics(metrics)
                .livePods(() -> pods)
                .build();
    }

    /** One exact (want 1) script call spending {@code cost} of {@code rule} on {@code key}, as any pod makes it. */
    private static GroupReply spend(String key, Rule rule, int cost) {
        ScriptCall call = SpendCall.of(key, List.of(new Spend(rule, 1.0, cost)), 1, 50, 0);
        return GroupReply.parse(fixture.store.run(call.script(), call.keys(), call.args()).join(), 1);
    }

    private static CheckResponse check(Limiter pod, String rule, String key) {
        return pod.check(new CheckRequest("api", List.of(CheckEntry.of(rule, key, 1)))).join();
    }

    private static long storeCalls(LimiterMetrics metrics) {
        return metrics.registry().find(LimiterMetrics.STORE_CALLS).timers().stream().mapToLong(Timer::count).sum();
    }
}
