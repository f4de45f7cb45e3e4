package dev.tollgate.limiter;

import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.common.check.EntryResult;
import dev.tollgate.common.check.CheckProblem;
import dev.tollgate.common.check.Verdict;
import dev.tollgate.common.rule.FailMode;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Mode;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.rule.RuleSnapshot;
import dev.tollgate.limiter.breaker.BreakerSettings;
import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.limiter.rules.RuleBook;
import dev.tollgate.limiter.rules.SnapshotRuleBook;
import dev.tollgate.limiter.rules.StaticRuleBook;
import dev.tollgate.store.LuaScript;
import dev.tollgate.store.StoreException;
import dev.tollgate.testsupport.time.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static dev.tollgate.limiter.ScriptedStore.failure;
import static dev.tollgate.limiter.ScriptedStore.reply;
import static dev.tollgate.limiter.ScriptedStore.throwing;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The engine's own paths on a store whose every answer the test writes: whatever the store does (fail,
 * throw, never answer, answer late, answer for one bad key) every check completes within its deadline,
 * with the rule's fail mode. A watchdog bounds every test: a check that never completes fails it.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class LimiterTest {

    private static final Duration DEADLINE = Duration.ofMillis(150);
    /** How long a test waits for any one check: the deadline plus room for a loaded machine. */
    private static final long WATCHDOG_MS = 3_000;
    private static final StoreException UNAVAILABLE = new StoreException(StoreException.Kind.UNAVAILABLE, "unavailable", "connection refused", null);
    private static final StoreException TIMEOUT = new StoreException(StoreException.Kind.TIMEOUT, "token_bucket timed out", null);

    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T12:00:00Z"));
    private final ScriptedStore store = new ScriptedStore();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private static final Match PLAN = new Match("enterprise", null);
    private static final Match LOGIN = new Match(null, "/login");

    private final Rule enterprise = Rule.tokenBucket("enterprise", "api", 1_000, 2_000).withMatch(PLAN);
    private final Rule free = Rule.tokenBucket("free-global", "api", 10, 20).withMatch(PLAN);
    private final Rule bulk = Rule.tokenBucket("bulk", "api", 10, 20).withMaxCost(10).withMatch(PLAN);
    /** A token bucket that fails closed: with leases on, a lease call left incomplete once held every later check of it for good. */
    private final Rule loginBucket = Rule.tokenBucket("login-bucket", "auth", 5, 5).withFailMode(FailMode.CLOSED).withMatch(LOGIN);
    private final Rule loginLog = Rule.slidingLog("login-ip", "auth", 5, 60).withMatch(LOGIN);

    @Test
    void aFailClosedBucketWithLeasesAnswersEveryCheckWhileItsBreakerIsOpenAndAfter() throws Exception {
        Limiter limiter = limiter(Optimizations.ALL);
        store.then(failure(UNAVAILABLE)).then(failure(UNAVAILABLE)).then(failure(UNAVAILABLE));
        for (int i = 0; i < 3; i++) {
            assertThat(failureOf(limiter, "auth", "login-bucket", "u1").cause()).isEqualTo(Outcome.FailedClosed.Cause.UNAVAILABLE);
        }
        // the breaker is open: two checks in a row, each answered at once (503), neither left waiting
        assertThat(failureOf(limiter, "auth", "login-bucket", "u1").reason()).isEqualTo("breaker_open");
        assertThat(failureOf(limiter, "auth", "login-bucket", "u1").reason()).isEqualTo("breaker_open");
        assertThat(store.callCount()).isEqualTo(3);

        clock.advance(Duration.ofMillis(1_100));
        store.otherwise(reply(5L, 0L, 0L, 4L, 200L));
        assertThat(check(limiter, "auth", "login-bucket", "u1").allowed()).as("the probe closes the breaker").isTrue();
        assertThat(check(limiter, "auth", "login-bucket", "u1").allowed()).isTrue();
    }

    @Test
    void aStoreThatNeverAnswersGetsTheFailModeWithinTheDeadline() throws Exception {
        Limiter limiter = limiter(Optimizations.NONE);
        long started = System.nanoTime();
        EntryResult open = check(limiter, "api", "enterprise", "acct").entries().get(0);
        assertThat(open.fallback()).isEqualTo("fail_open");
        assertThat(open.verdict()).isEqualTo(Verdict.ALLOW);
        Outcome.FailedClosed closed = failureOf(limiter, "auth", "login-ip", "203.0.113.9");
        assertThat(closed.cause()).as("a fail-closed rule answers 504").isEqualTo(Outcome.FailedClosed.Cause.TIMEOUT);
        assertThat(closed.reason()).isEqualTo("deadline");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(DEADLINE.multipliedBy(2).plusMillis(WATCHDOG_MS / 2));
        assertThat(registry.get(LimiterMetrics.DEADLINE_EXCEEDED).counter().count()).isEqualTo(2);
    }

    @Test
    void checksWaitingOnAHungLeaseCallAllAnswerWithinTheDeadline() throws Exception {
        Limiter limiter = limiter(Optimizations.ALL);
        List<CompletableFuture<Outcome>> checks = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            checks.add(limiter.check(request("api", entry("enterprise", "hot"))));
        }
        for (CompletableFuture<Outcome> check : checks) {
            EntryResult result = answered(check).entries().get(0);
            assertThat(result.fallback()).isEqualTo("fail_open");
        }
        assertThat(store.callCount()).as("the waiters ask the store once the call they waited for is past its deadline")
                .isBetween(1, 20);
    }

    @Test
    void aGrantThatArrivesAfterTheDeadlineIsStillKeptAsALease() throws Exception {
        Limiter limiter = limiter(Optimizations.ALL);
        assertThat(check(limiter, "api", "enterprise", "acct").entries().get(0).fallback()).isEqualTo("fail_open");
        // the store answers after all, granting a lease of 10: the tokens are spent in Redis, so keep them
        store.silent.get(0).complete(List.of(10L, 0L, 0L, 1_990L, 10L));
        int calls = store.callCount();
        CheckResponse leased = check(limiter, "api", "enterprise", "acct");
        assertThat(leased.entries().get(0).fallback()).isNull();
        assertThat(leased.allowed()).isTrue();
        assertThat(store.callCount()).as("answered from the late lease").isEqualTo(calls);
    }

    @Test
    void aStoreThatThrowsIsAFailureLikeAnyOther() throws Exception {
        Limiter limiter = limiter(Optimizations.ALL);
        store.otherwise(throwing(new IllegalStateException("encoder bug")));
        assertThat(check(limiter, "api", "enterprise", "acct").entries().get(0).fallback()).isEqualTo("fail_open");
        assertThat(failureOf(limiter, "auth", "login-bucket", "u1").cause()).isEqualTo(Outcome.FailedClosed.Cause.UNAVAILABLE);
    }

    @Test
    void errorsOfOneKeyNeverOpenTheShardsBreaker() throws Exception {
        // one key holding the wrong type must not send every key on its shard to fallback
        Limiter limiter = limiter(Optimizations.NONE);
        StoreException wrongType = new StoreException(StoreException.Kind.UNAVAILABLE, "script_error",
                "token_bucket failed: WRONGTYPE Operation against a key holding the wrong kind of value script: 1f2e, on @user_script:19.", null);
        for (int i = 0; i < 5; i++) {
            store.then(failure(wrongType));
            assertThat(check(limiter, "api", "enterprise", "bad-key").entries().get(0).fallback()).isEqualTo("fail_open");
        }
        store.otherwise(reply(1L, 0L, 0L, 1_999L, 1L));
        EntryResult other = check(limiter, "api", "enterprise", "good-key").entries().get(0);
        assertThat(other.fallback()).as("the shard's breaker stayed closed").isNull();
        assertThat(store.callCount()).isEqualTo(6);
    }

    @Test
    void repeatingAnEntryNeverGetsPastMaxCost() throws Exception {
        // 64 copies of a max_cost-1 rule used to be merged into one spend of 64 on a burst of 20
        Limiter limiter = limiter(Optimizations.NONE);
        CheckEntry[] copies = Collections.nCopies(64, entry("free-global", "acct")).toArray(CheckEntry[]::new);
        assertThat(problems(limiter, request("api", copies))).singleElement().satisfies(problem -> {
            assertThat(problem.message()).contains("adds up", "to 64");
            assertThat(problem.entries()).hasSize(64);
            assertThat(problem.path()).isEqualTo("entries[63].cost");
        });
        CheckEntry[] logins = Collections.nCopies(20, entry("login-ip", "203.0.113.9")).toArray(CheckEntry[]::new);
        assertThat(problems(limiter, request("auth", logins))).hasSize(1);
        assertThat(problems(limiter, request("api", CheckEntry.of("bulk", "acct", 4), CheckEntry.of("bulk", "acct", 4),
                CheckEntry.of("bulk", "acct", 4)))).singleElement().satisfies(problem -> assertThat(problem.message()).contains("to 12"));
        assertThat(store.callCount()).as("a refused request costs no store call").isZero();
    }

    @Test
    void entriesWithinMaxCostTogetherAreSpentAsOne() throws Exception {
        Limiter limiter = limiter(Optimizations.NONE);
        store.otherwise(reply(1L, 0L, 0L, 11L, 900L));
        CheckResponse response = check(limiter, request("api", CheckEntry.of("bulk", "acct", 4), CheckEntry.of("bulk", "acct", 5)));
        assertThat(response.allowed()).isTrue();
        assertThat(store.lastCall().args()).as("cost 9, capacity the rule's own burst").startsWith("1", "3", "bucket", "10000", "1000", "20000", "9");
        // then the asker (this pod's id, its lease ttl), which only a lease call (want > 1) is counted by
        assertThat(store.lastCall().args()).hasSize(9).endsWith("1000");
    }

    @Test
    void aPodWithoutRulesAnswersNoCheckUntilItHasSome() throws Exception {
        SnapshotRuleBook rules = new SnapshotRuleBook(clock, "us-east", 1.0);
        Limiter limiter = limiter(rules, Optimizations.NONE);
        assertThat(limiter.check(request("auth", entry("login-ip", "203.0.113.9"))).get(WATCHDOG_MS, TimeUnit.MILLISECONDS))
                .isInstanceOf(Outcome.NoRules.class);
        assertThat(store.callCount()).as("it spent nothing").isZero();
        rules.apply(new RuleSnapshot(1, List.of(loginLog), List.of(), List.of()));
        store.otherwise(reply(1L, 0L, 0L, 4L, 60_000L));
        assertThat(check(limiter, "auth", "login-ip", "203.0.113.9").allowed()).isTrue();
    }

    @Test
    void afterALeaseCallTimesOutTheSetAsksForOneRequestUntilACallComesBack() throws Exception {
        // the timed-out call may have been granted 50 requests that the pod never learns of
        Limiter limiter = limiter(Optimizations.ALL);
        store.then(failure(TIMEOUT));
        check(limiter, "api", "enterprise", "acct");
        assertThat(store.lastCall().args().get(0)).isEqualTo("50");
        store.otherwise(reply(1L, 0L, 0L, 1_999L, 1L));
        check(limiter, "api", "enterprise", "acct");
        assertThat(store.lastCall().args().get(0)).as("want after a lost grant").isEqualTo("1");
        check(limiter, "api", "enterprise", "acct");
        assertThat(store.lastCall().args().get(0)).isEqualTo("50");
        assertThat(registry.get(LimiterMetrics.LEASE_LOST_ON_TIMEOUT).counter().count()).isEqualTo(1);
    }

    @Test
    void aRememberedDenyTellsTheStoresWaitNotTheCachesCap() throws Exception {
        // a bucket of 1 per minute: the store says retry in 56 s, the pod trusts that for at most 1 s
        Limiter limiter = limiter(new Optimizations(false, false, true, 1, Duration.ofSeconds(1)));
        store.then(reply(0L, 56_314L, 56_314L, 0L, 60_000L));
        assertThat(check(limiter, "api", "free-global", "acct").entries().get(0).retryMs()).isEqualTo(56_314L);
        EntryResult remembered = check(limiter, "api", "free-global", "acct").entries().get(0);
        assertThat(store.callCount()).isEqualTo(1);
        assertThat(remembered.retryMs()).isBetween(55_000L, 56_314L);
    }

    @Test
    void theLocalBucketGetsBackWhatAFailedCheckTookFromIt() throws Exception {
        // the local-first bucket (burst 5 here) must not be drained by checks the store never admitted
        Limiter limiter = limiter(new Optimizations(true, false, false, 1, Duration.ofSeconds(1)));
        store.otherwise(failure(UNAVAILABLE));
        for (int i = 0; i < 10; i++) {
            assertThat(failureOf(limiter, "auth", "login-bucket", "u1")).isNotNull();
        }
        clock.advance(Duration.ofMillis(1_100));
        store.otherwise(reply(1L, 0L, 0L, 4L, 200L));
        assertThat(check(limiter, "auth", "login-bucket", "u1").allowed()).isTrue();
    }

    @Test
    void aShadowRuleThatCannotReachItsStoreNeverFailsTheCheck() throws Exception {
        Rule shadowLogin = loginBucket.withMode(Mode.SHADOW);
        Limiter limiter = limiter(new StaticRuleBook(List.of(shadowLogin)), Optimizations.NONE);
        store.otherwise(failure(UNAVAILABLE));
        EntryResult result = check(limiter, "auth", "login-bucket", "u1").entries().get(0);
        assertThat(result.shadow()).isTrue();
        assertThat(result.fallback()).isEqualTo("fail_open");
    }

    @Test
    void everyAnswerIsCountedAsADecisionWhateverStageGaveIt() throws Exception {
        Limiter limiter = limiter(Optimizations.NONE);
        store.then(reply(1L, 0L, 0L, 1_999L, 1L)).then(failure(UNAVAILABLE));
        check(limiter, "api", "enterprise", "acct");
        check(limiter, "api", "enterprise", "acct");
        assertThat(registry.get(LimiterMetrics.DECISIONS).tag("rule", "enterprise").counter().count())
                .as("the store's answer and the fallback's").isEqualTo(2);
    }

    @Test
    void aRequestDeniedByOneGroupGivesBackWhatTheOthersSpentInTheStore() throws Exception {
        Limiter limiter = limiter(Optimizations.NONE);
        store.then(reply(1L, 0L, 0L, 4L, 200L))                       // the account's bucket: allowed, spent
                .then(reply(0L, 30_000L, 30_000L, 0L, 60_000L, 0L))   // the IP's login log: denied
                .otherwise(reply(1L));                                 // the refund
        CheckResponse response = check(limiter, request("auth", entry("login-bucket", "u1"), entry("login-ip", "203.0.113.9")));
        assertThat(response.verdict()).isEqualTo(Verdict.DENY);
        ScriptedStore.Call refund = store.lastCall();
        assertThat(refund.script()).isEqualTo(LuaScript.REFUND);
        assertThat(refund.keys()).containsExactly("rl:{u1}:login-bucket");
        assertThat(refund.args()).containsExactly("bucket", "1000", "5000");
        assertThat(registry.get(LimiterMetrics.REFUNDS).tag("outcome", "ok").counter().count()).isEqualTo(1);
    }

    @Test
    void aLeasedRequestThatAnotherGroupDeniedGoesBackOnTheLease() throws Exception {
        Limiter limiter = limiter(Optimizations.ALL);
        store.then(reply(3L, 0L, 0L, 2L, 600L))                       // a lease of 3 on the account's bucket
                .then(reply(0L, 30_000L, 30_000L, 0L, 60_000L, 0L));  // the IP's login log: denied
        assertThat(check(limiter, request("auth", entry("login-bucket", "u1"), entry("login-ip", "203.0.113.9"))).allowed()).isFalse();
        assertThat(store.callCount()).as("no store call to give it back").isEqualTo(2);
        assertThat(registry.get(LimiterMetrics.REFUNDS).tag("outcome", "lease").counter().count()).isEqualTo(1);
        // the lease holds all 3 requests again: 2 left over plus the one given back
        for (int i = 0; i < 3; i++) {
            assertThat(check(limiter, "auth", "login-bucket", "u1").allowed()).isTrue();
        }
        assertThat(store.callCount()).isEqualTo(2);
    }

    @Test
    void anAdmittedRequestKeepsWhatItSpent() throws Exception {
        Limiter limiter = limiter(Optimizations.NONE);
        store.then(reply(1L, 0L, 0L, 4L, 200L)).then(reply(1L, 0L, 0L, 4L, 60_000L, 1_764_500_000_000_000L));
        assertThat(check(limiter, request("auth", entry("login-bucket", "u1"), entry("login-ip", "203.0.113.9"))).allowed()).isTrue();
        assertThat(store.callCount()).isEqualTo(2);
    }

    @Test
    void aFlappingShardGrantsItsFallbackAllowanceOncePerWindowNotOncePerFlap() throws Exception {
        // every breaker close used to restart the key's fallback bucket full, so each flap of a
        // shard handed out another day's quota
        Rule daily = Rule.fixedWindow("free-daily", "api", 100, 86_400).withMatch(PLAN);
        int pods = 2;
        Limiter limiter = Limiter.builder(new StaticRuleBook(List.of(daily)), store)
                .settings(new LimiterSettings(64, BreakerSettings.DEFAULTS, Optimizations.NONE, DEADLINE))
                .metrics(new LimiterMetrics(registry))
                .clock(clock)
                .nanoTime(clock::nanos)
                .livePods(() -> pods)
                .build();
        long started = clock.nanos();
        int fallbackAdmitted = 0;
        for (int flap = 0; flap < 10; flap++) {
            // three timeouts open the breaker, then checks answer from fallback for a second
            store.then(failure(TIMEOUT)).then(failure(TIMEOUT)).then(failure(TIMEOUT));
            for (int i = 0; i < 150; i++) {
                EntryResult result = check(limiter, "api", "free-daily", "acct").entries().get(0);
                if (result.verdict() == Verdict.ALLOW && "fail_open".equals(result.fallback())) {
                    fallbackAdmitted++;
                }
            }
            // the probe replies and the breaker closes
            clock.advance(Duration.ofMillis(1_100));
            store.then(reply(1L, 0L, 0L, 50L, 3_600_000L));
            assertThat(check(limiter, "api", "free-daily", "acct").entries().get(0).fallback()).as("flap %d closed", flap).isNull();
        }
        assertThat(store.callCount()).as("3 timeouts and a probe per flap").isEqualTo(40);
        // one pod's bucket: 100 ÷ 2 pods × 2 at once, refilling at that per day
        double bucket = 100.0 * 2 / pods;
        double refilled = bucket * (clock.nanos() - started) / 86_400e9;
        assertThat(fallbackAdmitted).as("one bucket for the whole flapping, not one per flap")
                .isLessThanOrEqualTo((int) Math.ceil(bucket + refilled));
    }

    @Test
    void aWaiterReleasedAfterItsDeadlineAnswersWithoutSpendingInTheStore() throws Exception {
        // its answer would come from the fail mode anyway, so a spend made for it would be lost
        Limiter limiter = Limiter.builder(new StaticRuleBook(List.of(enterprise)), store)
                .settings(new LimiterSettings(64, BreakerSettings.DEFAULTS, new Optimizations(false, true, false, 50, Duration.ofSeconds(1)),
                        Duration.ofSeconds(10)))
                .metrics(new LimiterMetrics(registry))
                .clock(clock)
                .nanoTime(clock::nanos)
                .livePods(() -> 3)
                .build();
        store.otherwise(call -> new CompletableFuture<>());
        CompletableFuture<Outcome> leaseCall = limiter.check(request("api", entry("enterprise", "acct")));
        CompletableFuture<Outcome> waiter = limiter.check(request("api", entry("enterprise", "acct")));
        assertThat(store.callCount()).as("the second check waits for the first one's lease call").isEqualTo(1);

        clock.advance(Duration.ofSeconds(10).plusMillis(1));
        // the lease call comes back past both deadlines, with no lease for the waiter
        store.silent.get(0).complete(List.of(1L, 0L, 0L, 1_999L, 1L));

        assertThat(answered(leaseCall).entries().get(0).fallback()).isNull();
        EntryResult waited = answered(waiter).entries().get(0);
        assertThat(waited.fallback()).isEqualTo("fail_open");
        assertThat(store.callCount()).as("no store call for a check past its deadline").isEqualTo(1);
        assertThat(registry.get(LimiterMetrics.DEADLINE_EXCEEDED).counter().count()).isEqualTo(1);
    }

    @Test
    void whatFollowsADeadlineRunsOffTheOneTimerThread() throws Exception {
        // the fail mode, the response and (in check-service) its JSON and write ran on the thread
        // that fires every CompletableFuture timeout in the JVM; now on none that fires timers
        List<String> answeredOn = Collections.synchronizedList(new ArrayList<>());
        Limiter limiter = Limiter.builder(new StaticRuleBook(List.of(enterprise)), store)
                .settings(new LimiterSettings(64, BreakerSettings.DEFAULTS, Optimizations.NONE, DEADLINE))
                .metrics(new LimiterMetrics(registry))
                .usage((rule, key, cost) -> answeredOn.add(Thread.currentThread().getName()))
                .build();
        CheckResponse response = check(limiter, "api", "enterprise", "acct");
        assertThat(response.entries().get(0).fallback()).isEqualTo("fail_open");
        assertThat(registry.get(LimiterMetrics.DEADLINE_EXCEEDED).counter().count()).isEqualTo(1);
        assertThat(answeredOn).hasSize(1);
        assertThat(answeredOn.get(0)).isNotIn("CompletableFutureDelayScheduler", "tollgate-timer").startsWith("tollgate-deadline-");
    }

    @Test
    void aStoreAnswerInTimeIsTurnedIntoTheResponseOnTheThreadThatBroughtIt() throws Exception {
        // no hop on the normal path: the deadline's executor is used only when the deadline fires
        List<String> answeredOn = Collections.synchronizedList(new ArrayList<>());
        Limiter limiter = Limiter.builder(new StaticRuleBook(List.of(enterprise)), store)
                .settings(new LimiterSettings(64, BreakerSettings.DEFAULTS, Optimizations.NONE, Duration.ofSeconds(10)))
                .metrics(new LimiterMetrics(registry))
                .usage((rule, key, cost) -> answeredOn.add(Thread.currentThread().getName()))
                .build();
        CompletableFuture<List<Long>> storeReply = new CompletableFuture<>();
        store.then(call -> storeReply);
        CompletableFuture<Outcome> checked = limiter.check(request("api", entry("enterprise", "acct")));
        Thread io = new Thread(() -> storeReply.complete(List.of(1L, 0L, 0L, 1_999L, 1L)), "store-io");
        io.start();
        io.join(WATCHDOG_MS);
        assertThat(answered(checked).entries().get(0).fallback()).isNull();
        assertThat(answeredOn).containsExactly("store-io");
    }

    private Limiter limiter(Optimizations optimizations) {
        return limiter(new StaticRuleBook(List.of(enterprise, free, bulk, loginBucket, loginLog)), optimizations);
    }

    private Limiter limiter(RuleBook rules, Optimizations optimizations) {
        return Limiter.builder(rules, store)
                .settings(new LimiterSettings(64, BreakerSettings.DEFAULTS, optimizations, DEADLINE))
                .metrics(new LimiterMetrics(registry))
                .clock(clock)
                .nanoTime(clock::nanos)
                .livePods(() -> 3)
                .build();
    }

    private static CheckEntry entry(String rule, String key) {
        return CheckEntry.of(rule, key, 1);
    }

    private static CheckRequest request(String domain, CheckEntry... entries) {
        return new CheckRequest(domain, List.of(entries));
    }

    private static CheckResponse check(Limiter limiter, String domain, String rule, String key) throws Exception {
        return check(limiter, request(domain, entry(rule, key)));
    }

    private static CheckResponse check(Limiter limiter, CheckRequest request) throws Exception {
        return answered(limiter.check(request));
    }

    private static CheckResponse answered(CompletableFuture<Outcome> checked) throws Exception {
        return checked.get(WATCHDOG_MS, TimeUnit.MILLISECONDS).answered().orElseThrow();
    }

    private static List<CheckProblem> problems(Limiter limiter, CheckRequest request) throws Exception {
        Outcome outcome = limiter.check(request).get(WATCHDOG_MS, TimeUnit.MILLISECONDS);
        assertThat(outcome).isInstanceOf(Outcome.Invalid.class);
        return ((Outcome.Invalid) outcome).problems();
    }

    private static Outcome.FailedClosed failureOf(Limiter limiter, String domain, String rule, String key) throws Exception {
        Outcome outcome = limiter.check(request(domain, entry(rule, key))).get(WATCHDOG_MS, TimeUnit.MILLISECONDS);
        assertThat(outcome).isInstanceOf(Outcome.FailedClosed.class);
        return (Outcome.FailedClosed) outcome;
    }
}
