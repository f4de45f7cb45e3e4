package dev.tollgate.limiter;

import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.common.rule.Counting;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.limiter.after.CountAfterSettings;
import dev.tollgate.limiter.breaker.BreakerSettings;
import dev.tollgate.limiter.rules.StaticRuleBook;
import dev.tollgate.store.CounterStore;
import dev.tollgate.store.InMemoryCounterStore;
import dev.tollgate.store.LuaScript;
import dev.tollgate.testsupport.time.MutableClock;
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
import static org.awaitility.Awaitility.await;

/** Count-after rules through the whole engine on the in-memory store: which groups are answered on the pod, and which go inline. */
class CountAfterOnMemoryStoreTest {

    private static final Match EDGE = new Match(null, "/");
    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T12:00:00Z"));
    private final InMemoryCounterStore memory = new InMemoryCounterStore(() -> clock.nanos() / 1_000);
    private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
    private final CounterStore store = new CounterStore() {
        @Override
        public CompletableFuture<List<Long>> run(LuaScript script, List<String> keys, List<String> args) {
            calls.computeIfAbsent(script.name(), s -> new AtomicInteger()).incrementAndGet();
            return memory.run(script, keys, args);
        }
    };

    private final Rule perIp = Rule.tokenBucket("flood-ip", "edge", 100, 100).withMatch(EDGE).withCounting(Counting.AFTER);
    private final Rule perIpInline = Rule.tokenBucket("ip-inline", "edge", 100, 100).withMatch(EDGE);
    private final Rule login = Rule.slidingLog("login-ip", "edge", 1, 60).withMatch(EDGE);

    @Test
    void aCountAfterRuleIsAnsweredOnThePodAndFlushedInTheBackground() throws Exception {
        try (Limiter limiter = limiter(perIp)) {
            for (int i = 0; i < 10; i++) {
                assertThat(check(limiter, CheckEntry.of("flood-ip", "ip-" + i, 1)).allowed()).isTrue();
            }
            assertThat(calls).as("no store call on the check path: the only calls are flushes").doesNotContainKey("spend");
            await().atMost(Duration.ofSeconds(5)).until(() -> calls.containsKey("count_after"));
            Thread.sleep(200);
            assertThat(calls.get("count_after").get()).as("ten keys of one shard in one call or two (the checks may straddle a flush); idle, none")
                    .isBetween(1, 2);
        }
    }

    @Test
    void aGroupMixingAnInlineRuleWithACountAfterRuleOnOneKeyIsCheckedInlineAsAWhole() throws Exception {
        try (Limiter limiter = limiter(perIp, perIpInline)) {
            for (int i = 0; i < 5; i++) {
                assertThat(check(limiter, CheckEntry.of("flood-ip", "ip-1", 1), CheckEntry.of("ip-inline", "ip-1", 1)).allowed()).isTrue();
            }
            assertThat(calls.get("spend").get()).as("one exact spend per check for both limits").isEqualTo(5);
            assertThat(calls).doesNotContainKey("count_after");
        }
    }

    @Test
    void aCountAfterAdmissionIsGivenBackWhenAnotherKeyOfTheCheckDenies() throws Exception {
        try (Limiter limiter = limiter(perIp, login)) {
            assertThat(check(limiter, CheckEntry.of("login-ip", "ip-9", 1)).allowed()).isTrue();
            CheckResponse denied = check(limiter, CheckEntry.of("flood-ip", "ip-1", 1), CheckEntry.of("login-ip", "ip-9", 1));
            assertThat(denied.allowed()).isFalse();
            // the pod counted nothing for ip-1, so no flush is ever sent for it
            Thread.sleep(300);
            assertThat(calls).doesNotContainKey("count_after");
        }
    }

    @Test
    void aKeyFlaggedOverIsDeniedOnThePodWithTheStoresWait() throws Exception {
        Rule tiny = Rule.tokenBucket("tiny", "edge", 1, 5).withMatch(EDGE).withCounting(Counting.AFTER);
        try (Limiter limiter = limiter(tiny)) {
            // an allowance of one request per flush answer: five answers spend the burst
            int admitted = 0;
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            CheckResponse last = null;
            while (System.nanoTime() < until) {
                last = check(limiter, CheckEntry.of("tiny", "ip-1", 1));
                if (last.allowed()) {
                    admitted++;
                } else if (last.entries().get(0).retryMs() > 100) {
                    break;
                }
                Thread.sleep(5);
            }
            assertThat(last.allowed()).isFalse();
            assertThat(last.entries().get(0).retryMs()).as("a token a second").isBetween(101L, 1_000L);
            // the limit and at most the bound for one pod (2 × an allowance of 1) over it
            assertThat(admitted).isBetween(5, 5 + 2);
        }
    }

    private Limiter limiter(Rule... rules) {
        return Limiter.builder(new StaticRuleBook(List.of(rules)), store)
                .settings(new LimiterSettings(64, BreakerSettings.DEFAULTS, Optimizations.NONE, Duration.ofSeconds(1))
                        .withCountAfter(CountAfterSettings.of(Duration.ofMillis(50))))
                .clock(clock)
                .nanoTime(clock::nanos)
                .build();
    }

    private static CheckResponse check(Limiter limiter, CheckEntry... entries) throws Exception {
        return limiter.check(new CheckRequest("edge", List.of(entries))).get(3, TimeUnit.SECONDS).answered().orElseThrow();
    }
}
