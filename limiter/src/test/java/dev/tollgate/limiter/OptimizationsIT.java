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
import java.util.concurrent.CompletableFuture;
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
    /** spend.lua's MAX_HOLD_MS: no hold is longer, so a raised limit is seen within it. */
    private static final long MAX_HOLD_MS = 1_000;
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
        // pods denied after it are held until 200, 300, ... 600 ms after the bucket began to refill, so they
        // come back one per token instead of all at once. Each client is still told the true retry.
        // The instants are read on the store's clock (each reply's stamp plus its hold): the time the calls
        // themselves took on a busy machine shortens every hold, never moves the instant it ends at
        Rule rule = Rule.tokenBucket("r", "api", 10, 20).withMatch(ENTERPRISE);
        String key = uniqueKey("acct");
        List<GroupReply> replies = spendBackToBack(key, rule, 25);
        long refillFrom = storeMs(replies.get(0));
        long span = storeMs(replies.get(24)) - refillFrom;
        for (int i = 0; i < 20; i++) {
            assertThat(replies.get(i).allowed()).isTrue();
        }
        GroupReply last = replies.get(19);
        assertThat(holdsUntil(last) - refillFrom).as("the last token's taker holds off until the next token").isBetween(99L, 101L);
        long previous = holdsUntil(last);
        for (int pod = 0; pod < 5; pod++) {
            GroupReply denied = replies.get(20 + pod);
            assertThat(denied.allowed()).as("denied: the 25 calls ran within %d ms of the store's clock", span).isFalse();
            assertThat(denied.retryMs()).isBetween(1L, 100L);
            assertThat(holdsUntil(denied) - previous).as("one token's refill after the pod before").isBetween(99L, 101L);
            previous = holdsUntil(denied);
        }
        assertThat(previous - refillFrom).isBetween(599L, 601L);
    }

    @Test
    void aFastBucketsQueueMovesByMicrosecondsNotWholeMilliseconds() {
        // at 25,000/s a slot is 40 us; rounded up to 1 ms, twenty pods denied in a row were held
        // 1, 2, ... 20 ms, and the bucket's tokens came out in bursts. The calls go back to back, so that the
        // store sees them microseconds apart and denies most of them, as it would twenty contending pods
        Rule rule = Rule.tokenBucket("r", "api", 25_000, 1).withMatch(ENTERPRISE);
        String key = uniqueKey("acct");
        List<GroupReply> replies = spendBackToBack(key, rule, 21);
        assertThat(replies.get(0).allowed()).isTrue();
        long longest = 0;
        for (GroupReply reply : replies.subList(1, replies.size())) {
            if (!reply.allowed()) {
                longest = Math.max(longest, reply.holdMs());
            }
        }
        assertThat(longest).as("twenty 40 us slots, rounded up once").isLessThanOrEqualTo(3);
    }

    @ParameterizedTest(name = "rate {0}, burst {1}: no hold outlasts the bucket's filling nor a second")
    @CsvSource({
            "10, 3",     // the bucket fills in 300 ms: holding longer would let tokens overflow
            "10, 100"})  // it fills in 10 s: at most a second, so a raised limit is seen within it
    void aHoldNeverOutlastsTheBucketFillingNorOneSecond(int rate, int burst) {
        Rule rule = Rule.tokenBucket("r", "api", rate, burst).withMatch(ENTERPRISE);
        String key = uniqueKey("acct");
        List<ScriptCall> calls = new ArrayList<>();
        calls.add(spendCall(key, rule.withMaxCost(burst), burst));
        for (int pod = 0; pod < 20; pod++) {
            calls.add(spendCall(key, rule, 1));
        }
        List<GroupReply> replies = backToBack(calls);
        assertThat(replies.get(0).allowed()).isTrue();
        // on the store's clock: a hold asked for later than the drain has that much less of the filling left
        long fullAt = storeMs(replies.get(0)) + burst * 1_000L / rate;
        long bound = 0;
        for (GroupReply denied : replies.subList(1, replies.size())) {
            assertThat(denied.allowed()).isFalse();
            bound = Math.min(MAX_HOLD_MS, fullAt - storeMs(denied));
            assertThat(denied.holdMs()).isLessThanOrEqualTo(bound);
        }
        assertThat(replies.get(20).holdMs()).as("twenty pods queue past the cap: the last is held to it").isEqualTo(bound);
    }

    @Test
    void theLastTokenComesWithAHoldForTheNextRequest() {
        Rule rule = Rule.tokenBucket("r", "api", 10, 2).withMatch(ENTERPRISE);
        String key = uniqueKey("acct");
        // back to back: 100 ms between the two calls on a busy machine would refill the token the second takes
        List<GroupReply> replies = spendBackToBack(key, rule, 2);
        GroupReply first = replies.get(0);
        assertThat(first.granted()).isEqualTo(1);
        assertThat(first.holdMs()).as("a token is left for the next request").isZero();
        GroupReply last = replies.get(1);
        assertThat(last.granted()).isEqualTo(1);
        assertThat(last.retryMs()).as("the client was admitted").isZero();
        assertThat(last.holdMs()).as("the next token is 100 ms away").isBetween(1L, 100L);
        assertThat(holdsUntil(last) - storeMs(first)).as("held until the next token, on the store's clock").isBetween(99L, 101L);
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
        Hammered run = hammer(pods, 10, key, durationMs);
        long admitted = run.admitted();
        double elapsed = (System.nanoTime() - started) / 1e9;
        long bound = burst + (long) Math.floor(rate * elapsed);
        System.out.printf("one client on 10 pods: %d admitted of %d checks, bound %d over %.2f s, %d store calls%n",
                admitted, run.checks(), bound, elapsed, storeCalls(metrics));
        assertThat(admitted).isLessThanOrEqualTo(bound);
        assertThat(admitted).as("holds only ever deny what the bucket would").isGreaterThanOrEqualTo(run.wholeLimitOr(burst, rate, durationMs));
        assertThat(storeCalls(metrics)).isLessThanOrEqualTo(3 * admitted);
    }

    @Test
    void anEnterpriseKeyOnOnePodCostsOneStoreCallPerLease() {
        LimiterMetrics metrics = new LimiterMetrics(new SimpleMeterRegistry());
        // Enterprise's burst and a fleet of 50; a refill slow enough that the counts below are exact
        Limiter pod = optimized(metrics, 50, Rule.of("enterprise", "api", new Limit.TokenBucket(1_000, 3_600, 2_000)).withMatch(ENTERPRISE));
        String key = uniqueKey("acct");
        for (int i = 0; i < 100; i++) {
            CheckResponse response = check(pod, "enterprise", key);
            assertThat(response.allowed()).isTrue();
            assertThat(response.entries().get(0).remaining()).as("the pod's view, lease included").isEqualTo(1_999 - i);
        }
        // the only asker of the key among 50 live pods: leases of min(50, what is left / 2), so two calls, where
        // leases sized for the fleet (20, 19, 19, 18, ...) took six
        assertThat(storeCalls(metrics)).isEqualTo(2L);
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
        Hammered run = hammer(pods, 20, key, durationMs);
        long admitted = run.admitted();
        double elapsed = (System.nanoTime() - started) / 1e9;
        long bound = burst + (long) Math.floor(rate * elapsed);
        System.out.printf("leases on 5 pods: %d admitted of %d checks, bound %d over %.2f s%n", admitted, run.checks(), bound, elapsed);
        assertThat(admitted).as("leases are pre-paid: no overshoot").isLessThanOrEqualTo(bound);
        // tokens stranded on expired leases are the price: at most a few percent here
        assertThat(admitted).isGreaterThanOrEqualTo(run.wholeLimitOr(burst, rate, durationMs));
    }

    @Test
    void aKeyAskedByTwoPodsOfFiftyGetsLeasesSizedForTwoAndAThirdPodIsServed() {
        // Growth (100/s, burst 200): sized for the 50 live pods a lease is 2 requests, for its 2 askers up to 50
        Rule rule = Rule.tokenBucket("growth", "api", 100, 200).withMatch(ENTERPRISE);
        String key = uniqueKey("acct");
        LimiterMetrics metricsOfA = new LimiterMetrics(new SimpleMeterRegistry());
        LimiterMetrics metricsOfB = new LimiterMetrics(new SimpleMeterRegistry());
        Limiter a = optimized(metricsOfA, 50, rule);
        Limiter b = optimized(metricsOfB, 50, rule);
        for (int i = 0; i < 40; i++) {
            assertThat(check(a, "growth", key).allowed()).isTrue();
            assertThat(check(b, "growth", key).allowed()).isTrue();
        }
        assertThat(storeCalls(metricsOfA)).as("pod-a: a lease of 50, not twenty of 2").isLessThanOrEqualTo(2);
        assertThat(storeCalls(metricsOfB)).as("pod-b: 37, then 28 of what is left").isLessThanOrEqualTo(3);
        LimiterMetrics metricsOfC = new LimiterMetrics(new SimpleMeterRegistry());
        Limiter c = optimized(metricsOfC, 50, rule);
        for (int i = 0; i < 10; i++) {
            assertThat(check(c, "growth", key).allowed()).as("a newcomer is served from the half the others left").isTrue();
        }
        assertThat(storeCalls(metricsOfC)).as("and leased to as one of three askers").isLessThanOrEqualTo(2);
    }

    @Test
    void tokensStrandedByIdleAskersStayWithinTheBound() throws InterruptedException {
        // ten pods of fifty ask one after another, spend one request each and go idle, on a bucket that refills
        // nothing meanwhile: the k-th lease takes at most 1 / (2k) of what is left (docs/optimizations.md)
        int burst = 1_000;
        int askers = 10;
        Rule rule = Rule.of("slow", "api", new Limit.TokenBucket(1, 86_400, burst)).withMatch(ENTERPRISE);
        String key = uniqueKey("acct");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        LimiterMetrics metrics = new LimiterMetrics(registry);
        Optimizations widest = new Optimizations(false, true, false, Optimizations.MAX_LEASE_WANT, java.time.Duration.ofMillis(500));
        List<Limiter> fleet = new ArrayList<>();
        for (int i = 0; i < askers; i++) {
            Limiter pod = Limiter.builder(new StaticRuleBook(List.of(rule)), fixture.store)
                    .settings(LimiterFixture.SETTINGS.withOptimizations(widest)).metrics(metrics).livePods(() -> 50).build();
            assertThat(check(pod, "slow", key).allowed()).isTrue();
            fleet.add(pod);
        }
        Thread.sleep(600);
        fleet.forEach(pod -> check(pod, "slow", key));
        double stranded = registry.get(LimiterMetrics.LEASE_STRANDED).counter().count();
        double harmonic = 0;
        for (int k = 1; k <= askers; k++) {
            harmonic += 1.0 / k;
        }
        double bound = Math.min(burst, burst / 2.0 * harmonic);
        System.out.printf("stranded by %d idle askers: %.0f tokens, bound %.0f%n", askers, stranded, bound);
        assertThat(stranded).as("the grants 500, 125, 62, ... less the requests spent").isPositive().isLessThanOrEqualTo(bound);
    }

    @Test
    void leasesSizedForTheirAskersAcrossTwelvePodsOfFiftyNeverAdmitMoreThanTheLimit() throws Exception {
        int burst = 400;
        int rate = 200;
        Rule rule = Rule.tokenBucket("hot", "api", rate, burst).withMatch(ENTERPRISE);
        String key = uniqueKey("acct");
        List<Limiter> pods = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            // the registry counts 50 live pods; only these 12 ask for the key, and their leases are sized for 12
            pods.add(optimized(LimiterMetrics.noop(), 50, rule));
        }
        long durationMs = 3_000;
        long started = System.nanoTime();
        Hammered run = hammer(pods, 24, key, durationMs);
        double elapsed = (System.nanoTime() - started) / 1e9;
        long bound = burst + (long) Math.floor(rate * elapsed);
        System.out.printf("askers' leases on 12 of 50 pods: %d admitted of %d checks, bound %d over %.2f s%n",
                run.admitted(), run.checks(), bound, elapsed);
        assertThat(run.admitted()).as("leases are pre-paid: no overshoot").isLessThanOrEqualTo(bound);
        assertThat(run.admitted()).isGreaterThanOrEqualTo(run.wholeLimitOr(burst, rate, durationMs));
    }

    @ParameterizedTest(name = "local {0}, leases {1}, deny cache {2}")
    @CsvSource({"true,true,true", "false,true,false", "true,false,true"})
    void aHotKeyFarOverItsLimitStillGetsItsWholeLimitFromOnePod(boolean localFirst, boolean leases, boolean denyCache) throws Exception {
        // the local-first bucket and the store's bucket run at the same rate in series: without giving back
        // what the store refused, the local one would be empty whenever the store has room
        int burst = 1_000;
        int rate = 1_000;
        LimiterMetrics metrics = new LimiterMetrics(new SimpleMeterRegistry());
        Limiter pod = Limiter.builder(new StaticRuleBook(List.of(Rule.tokenBucket("hot", "api", rate, burst).withMatch(ENTERPRISE))), fixture.store)
                .settings(LimiterFixture.SETTINGS.withOptimizations(new Optimizations(localFirst, leases, denyCache, 50, java.time.Duration.ofSeconds(1))))
                .metrics(metrics)
                .build();
        String key = uniqueKey("hot");
        long durationMs = 2_000;
        long started = System.nanoTime();
        // what this guards is the local-first bucket: a check the deny cache answered was held off by the store's own
        // word (until its next token) and asked nothing of the limit; when the pod's store calls are what a busy
        // machine slows, those answers would otherwise count as demand the pod left unserved
        Hammered run = hammer(List.of(pod), 8, key, durationMs)
                .excusing((long) metrics.registry().counter(LimiterMetrics.DENY_CACHE_HITS).count());
        long admitted = run.admitted();
        double elapsed = (System.nanoTime() - started) / 1e9;
        long bound = burst + (long) Math.floor(rate * elapsed);
        System.out.printf("hot key on one pod: %d admitted of %d checks, bound %d over %.2f s%n", admitted, run.checks(), bound, elapsed);
        assertThat(admitted).isLessThanOrEqualTo(bound);
        assertThat(admitted).isGreaterThanOrEqualTo(run.wholeLimitOr(burst, rate, durationMs));
    }

    /**
     * What {@link #hammer} counted: the checks its clients made, each asking for one request, and those admitted.
     * On a quiet machine the clients ask for many times the limit; on a busy one they may ask for less than it,
     * and then "the whole limit" is whatever they asked for. A pod that wrongly denies on its own (an empty
     * local bucket, a hold too long) answers in microseconds, so its clients ask for more, never less.
     */
    private record Hammered(long admitted, long checks) {

        /** The same run, not counting {@code answered} checks as asking for a request. */
        Hammered excusing(long answered) {
            return new Hammered(admitted, checks - answered);
        }

        /** 90% of the limit over the run (burst plus refill), or of the checks made when the clients asked for less. */
        long wholeLimitOr(int burst, int rate, long durationMs) {
            double limit = burst + rate * durationMs / 1000.0;
            return (long) (0.9 * Math.min(limit, checks));
        }
    }

    /** {@code clients} threads checking the "hot" rule on {@code key} as fast as they can, spread over the pods. */
    private static Hammered hammer(List<Limiter> pods, int clients, String key, long durationMs) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(clients);
        AtomicLong admitted = new AtomicLong();
        AtomicLong checks = new AtomicLong();
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                Limiter pod = pods.get(c % pods.size());
                running.add(threads.submit(() -> {
                    long until = System.currentTimeMillis() + durationMs;
                    while (System.currentTimeMillis() < until) {
                        checks.incrementAndGet();
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
        return new Hammered(admitted.get(), checks.get());
    }

    private static Limiter optimized(LimiterMetrics metrics, int pods, Rule... rules) {
        return Limiter.builder(new StaticRuleBook(List.of(rules)), fixture.store)
                .settings(LimiterFixture.SETTINGS.withOptimizations(Optimizations.ALL))
                .metrics(metrics)
                .livePods(() -> pods)
                .build();
    }

    /** One exact (want 1) script call spending {@code cost} of {@code rule} on {@code key}, as any pod makes it. */
    private static ScriptCall spendCall(String key, Rule rule, int cost) {
        return SpendCall.of(key, List.of(new Spend(rule, 1.0, cost)), 1, 50, 0);
    }

    /** {@code count} calls spending one request each, sent {@linkplain #backToBack back to back}. */
    private static List<GroupReply> spendBackToBack(String key, Rule rule, int count) {
        List<ScriptCall> calls = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            calls.add(spendCall(key, rule, 1));
        }
        return backToBack(calls);
    }

    /**
     * The calls sent one after the other without waiting for a reply, then their replies in order: one key's
     * calls share a connection, so the store runs them in this order and back to back, microseconds apart,
     * as it would calls of contending pods. Awaiting each reply instead put a loaded machine's round trip, up
     * to tens of milliseconds, between them: a 10/s bucket refilled most of a token meanwhile.
     */
    private static List<GroupReply> backToBack(List<ScriptCall> calls) {
        List<CompletableFuture<List<Long>>> sent = new ArrayList<>();
        for (ScriptCall call : calls) {
            sent.add(fixture.store.run(call.script(), call.keys(), call.args()));
        }
        return sent.stream().map(reply -> GroupReply.parse(reply.join(), 1)).toList();
    }

    /** The store's clock (its TIME, in ms) when it ran the call: a bucket-only reply's stamp is its microsecond. */
    private static long storeMs(GroupReply reply) {
        return Math.floorDiv(reply.stamp(), 1_000);
    }

    /** Until when, on the store's clock, the reply tells its pod to hold off. */
    private static long holdsUntil(GroupReply reply) {
        return storeMs(reply) + reply.holdMs();
    }

    private static CheckResponse check(Limiter pod, String rule, String key) {
        return pod.check(new CheckRequest("api", List.of(CheckEntry.of(rule, key, 1)))).join().answered().orElseThrow();
    }

    private static long storeCalls(LimiterMetrics metrics) {
        return metrics.registry().find(LimiterMetrics.STORE_CALLS).timers().stream().mapToLong(Timer::count).sum();
    }
}
