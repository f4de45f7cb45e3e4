package dev.tollgate.limiter;

import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.rule.AccountOverride;
import dev.tollgate.common.rule.Counting;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.rule.RuleSnapshot;
import dev.tollgate.limiter.breaker.BreakerSettings;
import dev.tollgate.limiter.rules.SnapshotRuleBook;
import dev.tollgate.limiter.rules.StaticRuleBook;
import dev.tollgate.store.CounterStore;
import dev.tollgate.store.InMemoryCounterStore;
import dev.tollgate.store.LuaScript;
import dev.tollgate.testsupport.time.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Explain tells what a check would answer and which stage would answer it, on the in-memory store the contract
 * holds to the scripts; and a look changes nothing: the store is asked only the no-writes peek, and the checks
 * after it answer as they would have without it.
 */
class ExplainTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T12:00:00Z"));
    private final InMemoryCounterStore memory = new InMemoryCounterStore(() -> clock.nanos() / 1_000);
    private final List<String> scripts = new ArrayList<>();
    private final CounterStore store = new CounterStore() {
        @Override
        public CompletableFuture<List<Long>> run(LuaScript script, List<String> keys, List<String> args) {
            scripts.add(script.name());
            return memory.run(script, keys, args);
        }
    };

    private static final Match ROUTE = new Match(null, "/v1/orders");
    private final Rule plan = Rule.tokenBucket("plan", "api", 1, 3).withMatch(ROUTE);
    private final Rule big = Rule.tokenBucket("big", "api", 1_000, 2_000).withMatch(ROUTE);
    private final Rule login = Rule.slidingLog("login", "api", 2, 60).withMatch(new Match(null, "/login"));

    @Test
    void aFreshKeyIsAnsweredByTheStoreWithItsLimitFullAndTheLookSpendsNothing() throws Exception {
        Limiter limiter = limiter(Optimizations.NONE, new StaticRuleBook(List.of(plan)));

        Explanation.Explained first = explained(limiter, CheckEntry.of("plan", "acct_1", 1));
        Explanation.Explained again = explained(limiter, CheckEntry.of("plan", "acct_1", 1));

        assertThat(first.allowed()).isTrue();
        Explanation.Entry entry = first.entries().get(0);
        assertThat(entry.stage()).isEqualTo(Explanation.Stage.STORE);
        assertThat(entry.rule()).hasValueSatisfying(rule -> assertThat(rule.version()).isEqualTo(1));
        assertThat(entry.level()).hasValueSatisfying(level -> {
            assertThat(level.remaining()).isEqualTo(3);
            assertThat(level.limit()).isEqualTo(3);
            assertThat(level.stored()).as("a look wrote no bucket").isFalse();
            assertThat(level.redisKey()).isEqualTo("rl:{acct_1}:plan");
        });
        assertThat(again).isEqualTo(first);
        assertThat(scripts).containsOnly("peek");
        for (long left = 2; left >= 0; left--) {
            assertThat(check(limiter, CheckEntry.of("plan", "acct_1", 1)).remaining()).as("no token went to the looks").isEqualTo(left);
        }
    }

    @Test
    void aKeyOverItsLimitIsDeniedByTheStoreAndSaysWhenItIsFullAgain() throws Exception {
        Limiter limiter = limiter(Optimizations.NONE, new StaticRuleBook(List.of(plan)));
        for (int i = 0; i < 3; i++) {
            check(limiter, CheckEntry.of("plan", "acct_1", 1));
        }

        Explanation.Explained explained = explained(limiter, CheckEntry.of("plan", "acct_1", 1));

        assertThat(explained.allowed()).isFalse();
        Explanation.Entry entry = explained.entries().get(0);
        assertThat(entry.stage()).isEqualTo(Explanation.Stage.STORE);
        assertThat(entry.allowed()).isFalse();
        assertThat(entry.level()).hasValueSatisfying(level -> assertThat(level.remaining()).isZero());
        assertThat(entry.why()).contains("holds 0 of 3", "short of a request of cost 1", "full again in 3000 ms");
    }

    @Test
    void aDenyTheStoreMadeIsExplainedAsThePodsDenyCacheUntilItsHoldEnds() throws Exception {
        Limiter limiter = limiter(new Optimizations(false, false, true, 1, Duration.ofSeconds(1)), new StaticRuleBook(List.of(plan)));
        for (int i = 0; i < 4; i++) {
            check(limiter, CheckEntry.of("plan", "acct_1", 1));
        }

        Explanation.Entry held = explained(limiter, CheckEntry.of("plan", "acct_1", 1)).entries().get(0);
        clock.advance(Duration.ofSeconds(1));
        Explanation.Entry after = explained(limiter, CheckEntry.of("plan", "acct_1", 1)).entries().get(0);

        assertThat(held.stage()).isEqualTo(Explanation.Stage.DENY_CACHE);
        assertThat(held.allowed()).isFalse();
        assertThat(held.why()).contains("remembers the store's deny");
        assertThat(held.level()).as("the store is read all the same").hasValueSatisfying(level -> assertThat(level.remaining()).isZero());
        assertThat(after.stage()).as("the hold is over: the store decides, and has refilled one token").isEqualTo(Explanation.Stage.STORE);
        assertThat(after.allowed()).isTrue();
    }

    @Test
    void aLeaseThePodHoldsAnswersAndTheLookTakesNoneOfIt() throws Exception {
        Limiter limiter = limiter(Optimizations.ALL, new StaticRuleBook(List.of(big)));
        check(limiter, CheckEntry.of("big", "acct_1", 1));

        Explanation.Entry leased = explained(limiter, CheckEntry.of("big", "acct_1", 1)).entries().get(0);
        Explanation.Entry again = explained(limiter, CheckEntry.of("big", "acct_1", 1)).entries().get(0);

        assertThat(leased.stage()).isEqualTo(Explanation.Stage.LEASE);
        assertThat(leased.allowed()).isTrue();
        // 2,000 / (2 x 1 pod) caps at the design's 50: one taken by the check, 49 left, none by the looks
        assertThat(leased.why()).contains("a lease of 49 more requests");
        assertThat(again.why()).isEqualTo(leased.why());
    }

    @Test
    void aCountAfterRuleIsExplainedAsThePodsOwnCountAndTheLookCountsNothing() throws Exception {
        // 100/s, burst 5: an allowance of 10 a flush, so ten admitted run the bucket 5 into debt
        Rule flood = Rule.tokenBucket("flood", "api", 100, 5).withMatch(ROUTE).withCounting(Counting.AFTER);
        try (Limiter limiter = limiter(Optimizations.NONE, new StaticRuleBook(List.of(flood)))) {
            Explanation.Entry first = explained(limiter, CheckEntry.of("flood", "203.0.113.7", 1)).entries().get(0);
            assertThat(first.stage()).isEqualTo(Explanation.Stage.COUNT_AFTER);
            assertThat(first.allowed()).isTrue();
            assertThat(first.why()).contains("counts after", "9 more before its next flush answer");
            assertThat(explained(limiter, CheckEntry.of("flood", "203.0.113.7", 1)).entries().get(0)).isEqualTo(first);
            for (long left = 9; left >= 0; left--) {
                assertThat(check(limiter, CheckEntry.of("flood", "203.0.113.7", 1)).remaining()).as("no count went to the looks").isEqualTo(left);
            }

            Explanation.Entry spent = explained(limiter, CheckEntry.of("flood", "203.0.113.7", 1)).entries().get(0);
            assertThat(spent.stage()).as("past the allowance the group goes inline: the store, which has counted nothing yet")
                    .isEqualTo(Explanation.Stage.STORE);
            assertThat(spent.level()).hasValueSatisfying(level -> assertThat(level.remaining()).isEqualTo(5));

            // the pod's own flush (every 100 ms) counts the ten, and its answer flags the key over
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(3)).untilAsserted(() ->
                    assertThat(explained(limiter, CheckEntry.of("flood", "203.0.113.7", 1)).entries().get(0).stage())
                            .isEqualTo(Explanation.Stage.COUNT_AFTER));
            Explanation.Entry over = explained(limiter, CheckEntry.of("flood", "203.0.113.7", 1)).entries().get(0);
            assertThat(over.allowed()).isFalse();
            assertThat(over.why()).contains("rule flood is over for this key", "denied on the pod for");
            assertThat(over.level()).as("the store holds the flushed debt").hasValueSatisfying(level -> assertThat(level.remaining()).isNegative());
            assertThat(scripts).as("a look only peeks; the counts went by the pod's flush").containsOnly("peek", "count_after");
        }
    }

    @Test
    void namesTheOverrideInForceWithItsExpiryAndTheRuleAsItApplies() throws Exception {
        Instant expiry = clock.instant().plus(Duration.ofDays(7));
        SnapshotRuleBook book = new SnapshotRuleBook(clock, "local", 1.0);
        book.apply(new RuleSnapshot(3, List.of(plan), List.of(new AccountOverride("acct_big", "plan", 500, 1_000, expiry, "launch week")),
                null, null));
        Limiter limiter = limiter(Optimizations.NONE, book);

        Explanation.Entry overridden = explained(limiter, CheckEntry.of("plan", "acct_big", 1)).entries().get(0);
        Explanation.Entry plain = explained(limiter, CheckEntry.of("plan", "acct_small", 1)).entries().get(0);

        assertThat(overridden.override()).hasValueSatisfying(override -> {
            assertThat(override.expiresAt()).isEqualTo(expiry);
            assertThat(override.reason()).isEqualTo("launch week");
        });
        assertThat(overridden.level()).hasValueSatisfying(level -> assertThat(level.limit()).isEqualTo(1_000));
        assertThat(plain.override()).isEmpty();
        assertThat(plain.level()).hasValueSatisfying(level -> assertThat(level.limit()).isEqualTo(3));
    }

    @Test
    void anUnknownRuleIsAllowedAndSaysSoAndAnInvalidRequestIsItsProblems() throws Exception {
        Limiter limiter = limiter(Optimizations.NONE, new StaticRuleBook(List.of(plan, login)));

        Explanation.Explained explained = explained(limiter, CheckEntry.of("nope", "acct_1", 1), CheckEntry.of("login", "10.0.0.1", 1));
        Explanation invalid = limiter.explain(new CheckRequest("api", List.of(CheckEntry.of("plan", "acct_1", -1)))).get(3, TimeUnit.SECONDS);

        assertThat(explained.entries()).extracting(Explanation.Entry::stage)
                .containsExactly(Explanation.Stage.UNKNOWN_RULE, Explanation.Stage.STORE);
        assertThat(explained.entries().get(1).level()).hasValueSatisfying(level -> assertThat(level.redisKey()).isEqualTo("rl:{10.0.0.1}:login:log"));
        assertThat(invalid).isInstanceOf(Explanation.Invalid.class);
    }

    private Limiter limiter(Optimizations optimizations, dev.tollgate.limiter.rules.RuleBook rules) {
        return Limiter.builder(rules, store)
                .settings(new LimiterSettings(64, BreakerSettings.DEFAULTS, optimizations, Duration.ofSeconds(1)))
                .clock(clock)
                .nanoTime(clock::nanos)
                .build();
    }

    private static Explanation.Explained explained(Limiter limiter, CheckEntry... entries) throws Exception {
        return (Explanation.Explained) limiter.explain(new CheckRequest("api", List.of(entries))).get(3, TimeUnit.SECONDS);
    }

    private static dev.tollgate.common.check.EntryResult check(Limiter limiter, CheckEntry entry) throws Exception {
        return limiter.check(new CheckRequest("api", List.of(entry))).get(3, TimeUnit.SECONDS).answered().orElseThrow().entries().get(0);
    }
}
