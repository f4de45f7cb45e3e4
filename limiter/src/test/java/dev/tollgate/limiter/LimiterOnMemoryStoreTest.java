package dev.tollgate.limiter;

import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.common.check.Verdict;
import dev.tollgate.common.rule.FailMode;
import dev.tollgate.common.rule.Identity;
import dev.tollgate.common.rule.Limit;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Mode;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.limiter.breaker.BreakerSettings;
import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.limiter.rules.StaticRuleBook;
import dev.tollgate.store.CounterStore;
import dev.tollgate.store.InMemoryCounterStore;
import dev.tollgate.store.LuaScript;
import dev.tollgate.limiter.usage.UsageSink;
import dev.tollgate.testsupport.time.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/**
 * The engine's local answers and spends on the in-memory store, whose semantics the contract suite holds
 * to the real scripts: leases, the deny cache, shadow rules, costs and refunds, on a clock the test moves.
 */
class LimiterOnMemoryStoreTest {

    private static final Match LOGIN = new Match(null, "/login");
    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T12:00:00Z"));
    private final InMemoryCounterStore memory = new InMemoryCounterStore(() -> clock.nanos() / 1_000);
    private final AtomicInteger calls = new AtomicInteger();
    private final CounterStore store = new CounterStore() {
        @Override
        public CompletableFuture<List<Long>> run(LuaScript script, List<String> keys, List<String> args) {
            calls.incrementAndGet();
            return memory.run(script, keys, args);
        }
    };

    private final Rule account = Rule.tokenBucket("account", "auth", 1_000, 2_000).withMatch(LOGIN);
    private final Rule perIp = Rule.slidingLog("login-ip", "auth", 2, 60).withMatch(LOGIN);
    private final Rule bulk = Rule.tokenBucket("bulk", "auth", 10, 20).withMaxCost(10).withMatch(LOGIN);

    @Test
    void leasesAnswerMostChecksOfABigKeyOnThePod() throws Exception {
        Limiter limiter = limiter(Optimizations.ALL, account);
        for (int i = 0; i < 100; i++) {
            assertThat(check(limiter, CheckEntry.of("account", "u1", 1)).allowed()).isTrue();
        }
        // leases of 50 from a bucket of 2,000 on one pod: a handful of calls, not 100
        assertThat(calls.get()).isLessThanOrEqualTo(5);
    }

    @Test
    void aClientOverItsLimitIsDeniedByThePodUntilTheStoreSaysItMayTryAgain() throws Exception {
        Limiter limiter = limiter(new Optimizations(false, false, true, 1, Duration.ofSeconds(1)), bulk);
        for (int i = 0; i < 2; i++) {
            assertThat(check(limiter, CheckEntry.of("bulk", "u1", 10)).allowed()).isTrue();
        }
        for (int i = 0; i < 50; i++) {
            assertThat(check(limiter, CheckEntry.of("bulk", "u1", 10)).allowed()).isFalse();
        }
        // the second spend took the last tokens, and the store said so (its hold): every deny came from the pod
        assertThat(calls.get()).as("two spends; the denies from the deny cache").isEqualTo(2);
        clock.advance(Duration.ofSeconds(1));
        assertThat(check(limiter, CheckEntry.of("bulk", "u1", 10)).allowed()).as("10 tokens refilled in a second").isTrue();
    }

    @Test
    void aShadowRuleReportsItsDenyAndNeverDeniesTheRequest() throws Exception {
        List<String> reported = new java.util.concurrent.CopyOnWriteArrayList<>();
        UsageSink usage = new UsageSink() {
            @Override
            public void admitted(String ruleId, String key, long cost) {
                reported.add("admitted " + ruleId + " " + cost);
            }

            @Override
            public void shadowDenied(String ruleId, long cost) {
                reported.add("shadow-denied " + ruleId + " " + cost);
            }
        };
        Limiter limiter = builder(Optimizations.NONE, perIp.withMode(Mode.SHADOW)).usage(usage).build();
        for (int i = 0; i < 2; i++) {
            check(limiter, CheckEntry.of("login-ip", "203.0.113.9", 1));
        }
        CheckResponse third = check(limiter, CheckEntry.of("login-ip", "203.0.113.9", 1));
        assertThat(third.verdict()).isEqualTo(Verdict.ALLOW);
        assertThat(third.entries().get(0).verdict()).isEqualTo(Verdict.DENY);
        assertThat(third.entries().get(0).shadow()).isTrue();
        assertThat(reported).as("a shadow rule spends nothing real; its deny is reported for the region's shadow-deny rate")
                .containsExactly("shadow-denied login-ip 1");
    }

    @Test
    void reportsEveryDenyByTheRuleVersionThatDeniedItAndWhetherInShadow() throws Exception {
        List<String> denied = new java.util.concurrent.CopyOnWriteArrayList<>();
        UsageSink usage = new UsageSink() {
            @Override
            public void admitted(String ruleId, String key, long cost) {
            }

            @Override
            public void denied(String ruleId, long version, boolean shadow, long cost) {
                denied.add(ruleId + " v" + version + (shadow ? " shadow " : " ") + cost);
            }
        };
        Limiter limiter = builder(Optimizations.NONE, bulk.withVersion(7), perIp.withMode(Mode.SHADOW).withVersion(3)).usage(usage).build();
        for (int i = 0; i < 3; i++) {
            check(limiter, CheckEntry.of("bulk", "u1", 10));
            check(limiter, CheckEntry.of("login-ip", "203.0.113.9", 1));
        }

        assertThat(denied).as("the third of each: a bucket of 20 spent by 10s, a log of 2").containsExactly("bulk v7 10", "login-ip v3 shadow 1");
    }

    @Test
    void reportsEveryCheckedEntryWithWhetherItsOwnRuleDeniedItForSimulations() throws Exception {
        List<String> checked = new java.util.concurrent.CopyOnWriteArrayList<>();
        UsageSink usage = new UsageSink() {
            @Override
            public void admitted(String ruleId, String key, long cost) {
            }

            @Override
            public void checked(String ruleId, String key, long cost, boolean denied) {
                checked.add(ruleId + " " + key + " " + cost + (denied ? " denied" : " allowed"));
            }
        };
        Limiter limiter = builder(Optimizations.NONE, account, perIp).usage(usage).build();
        for (int i = 0; i < 3; i++) {
            check(limiter, CheckEntry.of("account", "u1", 1), CheckEntry.of("login-ip", "203.0.113.9", 1));
        }
        check(limiter, CheckEntry.of("no-such-rule", "u1", 1));

        // the third request is denied by its login log: the account bucket's own answer (allowed) is what it recorded,
        // per-IP keys are recorded too, and an unknown rule is not
        assertThat(checked).containsExactlyInAnyOrder(
                "account u1 1 allowed", "login-ip 203.0.113.9 1 allowed",
                "account u1 1 allowed", "login-ip 203.0.113.9 1 allowed",
                "account u1 1 allowed", "login-ip 203.0.113.9 1 denied");
    }

    @Test
    void reportsUsageOnlyOfLimitsSplitAcrossRegionsSoASprayOfCallerChosenKeysNeverReachesTheRebalancer() throws Exception {
        // every admitted entry was reported, so a spray of distinct IPs filled the region's usage
        // (and the recorder's cap on keys per interval) and each IP got region_budget rows in every snapshot
        Rule perIpBucket = new Rule("per-ip", "auth", LOGIN, Identity.IP, Limit.TokenBucket.perSecond(10, 20), null, null, 1, 1);
        Rule perUserLog = new Rule("login-user", "auth", LOGIN, Identity.USER, new Limit.SlidingLog(20, 60), null, FailMode.CLOSED, 1, 1);
        Rule daily = Rule.fixedWindow("account-daily", "auth", 10_000, 86_400).withMatch(LOGIN);
        Map<String, Long> reported = new ConcurrentHashMap<>();
        Limiter limiter = builder(Optimizations.NONE, account, daily, perIpBucket, perIp, perUserLog)
                .usage((rule, key, cost) -> reported.merge(rule + " " + key, cost, Long::sum)).build();

        for (int i = 0; i < 1_000; i++) {
            String ip = "198.51." + (i / 256) + "." + (i % 256);
            CheckResponse response = check(limiter, CheckEntry.of("account", "acct_merchant", 1), CheckEntry.of("account-daily", "acct_merchant", 1),
                    CheckEntry.of("per-ip", ip, 1), CheckEntry.of("login-ip", ip, 1), CheckEntry.of("login-user", "user-" + i, 1));
            assertThat(response.allowed()).isTrue();
        }

        assertThat(reported).as("the merchant's account limits only: per-IP keys and login logs keep the default split")
                .containsOnly(entry("account acct_merchant", 1_000L), entry("account-daily acct_merchant", 1_000L));
    }

    @Test
    void aRequestDeniedByItsLoginLogLeavesItsAccountBucketWhereItWas() throws Exception {
        Limiter limiter = limiter(Optimizations.NONE, account, perIp);
        for (int i = 0; i < 2; i++) {
            check(limiter, CheckEntry.of("account", "u1", 1), CheckEntry.of("login-ip", "203.0.113.9", 1));
        }
        CheckResponse denied = check(limiter, CheckEntry.of("account", "u1", 1), CheckEntry.of("login-ip", "203.0.113.9", 1));
        assertThat(denied.allowed()).isFalse();
        // 2,000 - 2 spent; the third was given back, so the next spend leaves 1,997
        assertThat(check(limiter, CheckEntry.of("account", "u1", 1)).entries().get(0).remaining()).isEqualTo(1_997);
    }

    @Test
    void limitsOfOneKeyWithDifferentAlgorithmsAreOneCallAndSpendTogether() throws Exception {
        Rule daily = Rule.fixedWindow("account-daily", "auth", 2, 86_400).withMatch(LOGIN);
        // with leases on: a group that holds a window is never leased, so every check is one exact call
        Limiter limiter = limiter(Optimizations.ALL, account, daily);
        for (int i = 0; i < 2; i++) {
            assertThat(check(limiter, CheckEntry.of("account", "u1", 1), CheckEntry.of("account-daily", "u1", 1)).allowed()).isTrue();
        }
        CheckResponse denied = check(limiter, CheckEntry.of("account", "u1", 1), CheckEntry.of("account-daily", "u1", 1));
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.entries().get(0).verdict()).as("the bucket alone would have allowed it").isEqualTo(Verdict.ALLOW);
        assertThat(denied.entries().get(0).remaining()).as("and was not spent").isEqualTo(1_998);
        assertThat(denied.entries().get(1).verdict()).isEqualTo(Verdict.DENY);
        assertThat(calls.get()).as("one call per check, no refund").isEqualTo(3);
    }

    /** Growth: 100/s, burst 200. Sized for a fleet of 50 its lease is 200 / (2 x 50) = 2 requests. */
    private final Rule growth = Rule.tokenBucket("growth", "auth", 100, 200).withMatch(LOGIN);

    @Test
    void aKeyAskedByTwoPodsOfFiftyGetsLeasesSizedForTwo() throws Exception {
        AtomicInteger callsOfA = new AtomicInteger();
        AtomicInteger callsOfB = new AtomicInteger();
        Limiter a = pod("pod-a", 50, callsOfA, growth);
        Limiter b = pod("pod-b", 50, callsOfB, growth);
        for (int i = 0; i < 40; i++) {
            assertThat(check(a, CheckEntry.of("growth", "u1", 1)).allowed()).isTrue();
            assertThat(check(b, CheckEntry.of("growth", "u1", 1)).allowed()).isTrue();
        }
        // pod-a leases 50 (alone: min(50, 200 / 2)), pod-b 37 (150 / (2 x 2)) and then 28 ((113 - 3) / 4) and so on:
        // a few calls each where leases sized for 50 pods (2 requests) would take 20
        assertThat(callsOfA.get()).as("pod-a's store calls for 40 checks").isEqualTo(1);
        assertThat(callsOfB.get()).as("pod-b's store calls for 40 checks").isLessThanOrEqualTo(2);
    }

    @Test
    void aThirdPodJoiningWhileTwoHoldLeasesIsServedAndNoPodOvershoots() throws Exception {
        // a bucket that refills nothing within the test, and leases as large as the pods may ask
        Rule slow = Rule.of("slow", "auth", new Limit.TokenBucket(1, 86_400, 100)).withMatch(LOGIN);
        Optimizations big = new Optimizations(false, true, false, Optimizations.MAX_LEASE_WANT, Duration.ofSeconds(1));
        Limiter a = pod("pod-a", 50, new AtomicInteger(), big, slow);
        Limiter b = pod("pod-b", 50, new AtomicInteger(), big, slow);
        Limiter c = pod("pod-c", 50, new AtomicInteger(), big, slow);
        assertThat(check(a, CheckEntry.of("slow", "u1", 1)).allowed()).as("pod-a leases 50 of 100").isTrue();
        assertThat(check(b, CheckEntry.of("slow", "u1", 1)).allowed()).as("pod-b leases 12 of the 50 left").isTrue();
        assertThat(check(c, CheckEntry.of("slow", "u1", 1)).allowed()).as("pod-c, a newcomer: 6 of the 38 left").isTrue();
        int admitted = 3;
        for (int round = 0; round < 200; round++) {
            for (Limiter pod : List.of(a, b, c)) {
                if (check(pod, CheckEntry.of("slow", "u1", 1)).allowed()) {
                    admitted++;
                }
            }
        }
        assertThat(admitted).as("pre-paid leases: exactly the burst, none over it, none stranded").isEqualTo(100);
    }

    @Test
    void tokensStrandedOnIdlePodsStayWithinTheBoundForTheirAskers() throws Exception {
        // ten pods ask one after another, spend one request each and go idle: the worst case for stranding, as
        // the k-th asker counts only the k pods that asked so far (docs/optimizations.md, "Leases sized by their askers")
        int burst = 1_000;
        int askers = 10;
        Rule slow = Rule.of("slow", "auth", new Limit.TokenBucket(1, 86_400, burst)).withMatch(LOGIN);
        Optimizations big = new Optimizations(false, true, false, Optimizations.MAX_LEASE_WANT, Duration.ofSeconds(1));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        LimiterMetrics metrics = new LimiterMetrics(registry, 0.9);
        List<Limiter> fleet = new java.util.ArrayList<>();
        for (int i = 0; i < askers; i++) {
            Limiter pod = pod("pod-" + i, 50, new AtomicInteger(), big, metrics, slow);
            assertThat(check(pod, CheckEntry.of("slow", "u1", 1)).allowed()).isTrue();
            fleet.add(pod);
        }
        clock.advance(Duration.ofMillis(1_001));
        for (Limiter pod : fleet) {
            // the first use after the ttl finds the lease expired and counts what it strands
            check(pod, CheckEntry.of("slow", "u1", 1));
        }
        double stranded = registry.get(LimiterMetrics.LEASE_STRANDED).counter().count();
        double harmonic = 0;
        for (int k = 1; k <= askers; k++) {
            harmonic += 1.0 / k;
        }
        double bound = Math.min(burst, burst / 2.0 * harmonic);
        // the grants were 500, 125, 62, 39, 27, 20, 16, 13, 11 and 9: 822, less the ten requests spent
        assertThat(stranded).as("stranded, against min(burst, burst / 2 x H(askers)) = %.0f", bound)
                .isEqualTo(812).isLessThanOrEqualTo(bound);
    }

    private Limiter pod(String podId, int livePods, AtomicInteger podCalls, Rule... rules) {
        return pod(podId, livePods, podCalls, Optimizations.ALL, LimiterMetrics.noop(), rules);
    }

    private Limiter pod(String podId, int livePods, AtomicInteger podCalls, Optimizations optimizations, Rule... rules) {
        return pod(podId, livePods, podCalls, optimizations, LimiterMetrics.noop(), rules);
    }

    /** One pod of a fleet on the shared in-memory store: its own engine, id and count of store calls. */
    private Limiter pod(String podId, int livePods, AtomicInteger podCalls, Optimizations optimizations, LimiterMetrics metrics, Rule... rules) {
        CounterStore counted = new CounterStore() {
            @Override
            public CompletableFuture<List<Long>> run(LuaScript script, List<String> keys, List<String> args) {
                podCalls.incrementAndGet();
                return memory.run(script, keys, args);
            }
        };
        return Limiter.builder(new StaticRuleBook(List.of(rules)), counted)
                .settings(new LimiterSettings(64, BreakerSettings.DEFAULTS, optimizations, Duration.ofSeconds(1)))
                .clock(clock)
                .nanoTime(clock::nanos)
                .livePods(() -> livePods)
                .podId(podId)
                .metrics(metrics)
                .build();
    }

    private Limiter limiter(Optimizations optimizations, Rule... rules) {
        return builder(optimizations, rules).build();
    }

    private Limiter.Builder builder(Optimizations optimizations, Rule... rules) {
        return Limiter.builder(new StaticRuleBook(List.of(rules)), store)
                .settings(new LimiterSettings(64, BreakerSettings.DEFAULTS, optimizations, Duration.ofSeconds(1)))
                .clock(clock)
                .nanoTime(clock::nanos);
    }

    private static CheckResponse check(Limiter limiter, CheckEntry... entries) throws Exception {
        return limiter.check(new CheckRequest("auth", List.of(entries))).get(3, TimeUnit.SECONDS).answered().orElseThrow();
    }
}
