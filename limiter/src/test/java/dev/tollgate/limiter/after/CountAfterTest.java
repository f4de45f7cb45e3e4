package dev.tollgate.limiter.after;

import dev.tollgate.common.rule.Counting;
import dev.tollgate.common.rule.FailMode;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.store.CounterStore;
import dev.tollgate.store.InMemoryCounterStore;
import dev.tollgate.store.LuaScript;
import dev.tollgate.store.StoreException;
import dev.tollgate.store.script.GroupReply;
import dev.tollgate.store.script.ScriptCall;
import dev.tollgate.store.script.Spend;
import dev.tollgate.store.script.SpendCall;
import dev.tollgate.testsupport.time.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** Count after on one pod and on several sharing the in-memory store, on a clock the test moves and flushes it drives. */
class CountAfterTest {

    private static final Duration FLUSH = Duration.ofMillis(100);
    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T12:00:00Z"));
    private final InMemoryCounterStore memory = new InMemoryCounterStore(() -> clock.nanos() / 1_000);
    private final AtomicInteger calls = new AtomicInteger();
    private final AtomicBoolean storeGone = new AtomicBoolean();
    /** The store runs the call, and the pod hears a timeout: what a call answered after its timeout looks like. */
    private final AtomicBoolean countsThenTimesOut = new AtomicBoolean();
    private final AtomicInteger inlineChecks = new AtomicInteger();
    private final CounterStore store = new CounterStore() {
        @Override
        public CompletableFuture<List<Long>> run(LuaScript script, List<String> keys, List<String> args) {
            calls.incrementAndGet();
            if (countsThenTimesOut.get()) {
                memory.run(script, keys, args);
            }
            return storeGone.get() || countsThenTimesOut.get()
                    ? CompletableFuture.failedFuture(new StoreException(StoreException.Kind.TIMEOUT, "timeout", "frozen", null))
                    : memory.run(script, keys, args);
        }
    };
    private final LimiterMetrics metrics = new LimiterMetrics(new SimpleMeterRegistry());

    /** 100/s, burst 100: an allowance of 10 per pod per 100 ms flush, so an overshoot bound of 20 per pod. */
    private final Rule perIp = Rule.tokenBucket("flood-ip", "edge", 100, 100).withMatch(new Match(null, "/")).withCounting(Counting.AFTER);
    private final Spend one = new Spend(perIp, 1.0, 1);

    @Test
    void admitsBelowTheLimitWithNoStoreCallAndCountsInOneFlush() {
        CountAfter pod = pod(CountAfterSettings.of(FLUSH));
        for (int i = 0; i < 10; i++) {
            assertThat(pod.admit("ip-1", List.of(one), false)).isEqualTo(new Admission.Admitted(9 - i));
        }
        assertThat(calls.get()).as("no store call on the check path").isZero();
        assertThat(pod.admit("ip-1", List.of(one), false)).as("the allowance until the next answer is spent: checked inline")
                .isEqualTo(new Admission.Inline(Admission.Reason.ALLOWANCE_SPENT));

        pod.flush().join();

        assertThat(calls.get()).as("one call for the shard").isEqualTo(1);
        assertThat(spendInline("ip-1").remaining()).as("the flush counted 10 into the bucket the inline spend reads").containsExactly(89);
        assertThat(pod.admit("ip-1", List.of(one), false)).as("the answer restarted the allowance").isInstanceOf(Admission.Admitted.class);
    }

    @Test
    void flagsAKeyOverOnceAFlushFindsItOverAndDeniesOnThePodUntilThen() {
        Rule small = Rule.tokenBucket("small", "edge", 100, 10).withMatch(new Match(null, "/")).withCounting(Counting.AFTER);
        Spend spend = new Spend(small, 1.0, 1);
        CountAfter pod = pod(CountAfterSettings.of(FLUSH));
        for (int i = 0; i < 10; i++) {
            assertThat(pod.admit("ip-1", List.of(spend), false)).isInstanceOf(Admission.Admitted.class);
        }
        pod.flush().join();

        Admission over = pod.admit("ip-1", List.of(spend), false);
        assertThat(over).isEqualTo(new Admission.Over("small", 10));
        int callsWhileOver = calls.get();
        for (int i = 0; i < 100; i++) {
            assertThat(pod.admit("ip-1", List.of(spend), false)).isInstanceOf(Admission.Over.class);
        }
        assertThat(calls.get()).isEqualTo(callsWhileOver);
        clock.advance(Duration.ofMillis(10));
        assertThat(pod.admit("ip-1", List.of(spend), false)).as("one token refilled in 10 ms").isInstanceOf(Admission.Admitted.class);
    }

    @Test
    void aKeyOnFivePodsRunsOverByNoMoreThanTheStatedBound() {
        int pods = 5;
        int steps = 50;
        long admitted = flood(pods, steps, one, 200);
        long allowed = 100 + 100 * steps / 10;
        long bound = pods * CountAfterSettings.of(FLUSH).overshootBoundPerPod(100, 1);
        assertThat(bound).isEqualTo(100);
        assertThat(admitted).as("the burst and the refill of 5 s, and at most the bound over").isGreaterThanOrEqualTo(allowed)
                .isLessThanOrEqualTo(allowed + bound);
        assertThat(calls.get() - inlineChecks.get()).as("at most one flush call per pod per interval (none while flagged over)").isPositive().isLessThanOrEqualTo(pods * steps);
        assertThat(inlineChecks.get()).as("inline only past the allowance, before the flag").isLessThan(50_000 / 10);
    }

    @Test
    void aKeyOnFiftyPodsWhoseAllowancesOutgrowItsBurstStillRunsOverByNoMoreThanTheBound() {
        // 10/s, burst 20: an allowance of 1 per pod per flush, so 50 pods admit 50 a flush, past the burst; the store
        // keeps the whole debt they run up (a floor at minus the burst forgave it: 161 over a bound of 100)
        Rule small = Rule.tokenBucket("small-ip", "edge", 10, 20).withMatch(new Match(null, "/")).withCounting(Counting.AFTER);
        Spend spend = new Spend(small, 1.0, 1);
        int pods = 50;
        int steps = 50;
        long admitted = flood(pods, steps, spend, 20);
        long allowed = 20 + 10 * steps / 10;
        long bound = pods * CountAfterSettings.of(FLUSH).overshootBoundPerPod(10, 1);
        assertThat(bound).isEqualTo(100);
        assertThat(admitted).as("the burst and the refill of 5 s, and at most the bound over").isGreaterThanOrEqualTo(allowed)
                .isLessThanOrEqualTo(allowed + bound);
    }

    /** {@code perPod} requests per pod per flush interval on one key over {@code steps} intervals; how many were admitted. */
    private long flood(int pods, int steps, Spend spend, int perPod) {
        List<CountAfter> fleet = new ArrayList<>();
        for (int i = 0; i < pods; i++) {
            fleet.add(pod(CountAfterSettings.of(FLUSH)));
        }
        long admitted = 0;
        for (int step = 0; step < steps; step++) {
            // spread over the interval: ten ticks of 10 ms
            for (int r = 0; r < perPod; r++) {
                for (CountAfter pod : fleet) {
                    if (admitted(pod, "ip-1", spend)) {
                        admitted++;
                    }
                }
                if (r % (perPod / 10) == perPod / 10 - 1) {
                    clock.advance(Duration.ofMillis(10));
                }
            }
            for (CountAfter pod : fleet) {
                pod.flush().join();
            }
        }
        return admitted;
    }

    @Test
    void aFullMapOfPendingCountsSendsNewKeysInlineAndEmptiesOnTheFlush() {
        CountAfter pod = pod(CountAfterSettings.of(FLUSH, 100));
        for (int i = 0; i < 100; i++) {
            assertThat(pod.admit("ip-" + i, List.of(one), false)).isInstanceOf(Admission.Admitted.class);
        }
        assertThat(pod.admit("ip-100", List.of(one), false)).isEqualTo(new Admission.Inline(Admission.Reason.PENDING_FULL));
        assertThat(pod.admit("ip-7", List.of(one), false)).as("a key already held is still counted").isInstanceOf(Admission.Admitted.class);
        assertThat(pod.held()).isEqualTo(100);

        pod.flush().join();

        assertThat(pod.held()).as("flushed and answered: nothing held").isZero();
        assertThat(pod.admit("ip-100", List.of(one), false)).isInstanceOf(Admission.Admitted.class);
    }

    @Test
    void aGivenBackRequestIsNeverCounted() {
        CountAfter pod = pod(CountAfterSettings.of(FLUSH));
        pod.admit("ip-1", List.of(one), false);
        pod.admit("ip-1", List.of(one), false);
        pod.giveBack("ip-1", List.of(one));
        pod.flush().join();
        assertThat(spendInline("ip-1").remaining()).containsExactly(98);
    }

    @Test
    void aFailClosedRuleDeniesOnceItsShardsFlushesHaveFailedForThreeIntervalsAndAdmitsAgainWhenAProbeIsAnswered() {
        Spend closed = new Spend(perIp.withFailMode(FailMode.CLOSED), 1.0, 1);
        CountAfter pod = pod(CountAfterSettings.of(FLUSH));
        pod.admit("ip-1", List.of(closed), true);
        storeGone.set(true);
        pod.flush().join();
        assertThat(dropped()).as("the failed flush's count is kept, to resend").isZero();
        clock.advance(Duration.ofMillis(299));
        assertThat(pod.admit("ip-1", List.of(closed), true)).as("within the wait").isInstanceOf(Admission.Admitted.class);
        assertThat(pod.admit("ip-1", List.of(one), false)).as("a fail-open rule of the same shard").isInstanceOf(Admission.Admitted.class);
        clock.advance(Duration.ofMillis(1));
        assertThat(pod.admit("ip-1", List.of(closed), true)).isEqualTo(new Admission.StoreGone("store"));
        assertThat(pod.admit("ip-2", List.of(one), false)).as("fail open admits on").isInstanceOf(Admission.Admitted.class);

        storeGone.set(false);
        pod.flush().join();
        assertThat(pod.admit("ip-1", List.of(closed), true)).as("the shard took a flush again").isInstanceOf(Admission.Admitted.class);
        assertThat(resent(false)).as("the failed call, resent, counted: the store had never run it").isEqualTo(1);
    }

    @Test
    void aFlushThatTimesOutAfterTheStoreCountedIsResentAndCountedOnce() {
        CountAfter pod = pod(CountAfterSettings.of(FLUSH));
        admitAllowance(pod, "ip-1");
        countsThenTimesOut.set(true);
        pod.flush().join();
        countsThenTimesOut.set(false);
        admitAllowance(pod, "ip-1");

        pod.flush().join();

        assertThat(resent(true)).as("the resend found its call counted already").isEqualTo(1);
        assertThat(spendInline("ip-1").remaining()).as("20 counted, each once, and this one").containsExactly(79);
        assertThat(dropped()).isZero();
    }

    @Test
    void aCallStillFailingOnceItsCountsAreFiveFlushTimeoutsOldIsDropped() {
        CountAfterSettings settings = CountAfterSettings.of(FLUSH);
        CountAfter pod = pod(settings);
        admitAllowance(pod, "ip-1");
        storeGone.set(true);
        pod.flush().join();
        clock.advance(settings.resendFor());
        pod.flush().join();
        assertThat(dropped()).as("still within its age: resent").isZero();

        clock.advance(Duration.ofMillis(1));
        pod.flush().join();

        assertThat(dropped()).isEqualTo(10);
        storeGone.set(false);
        pod.flush().join();
        assertThat(spendInline("ip-1").remaining()).as("never counted").containsExactly(99);
    }

    @Test
    void aShardWithACallStillOutIsSkippedAndTheOtherShardsFlushOn() {
        List<CompletableFuture<List<Long>>> slowCalls = new ArrayList<>();
        AtomicInteger fastCalls = new AtomicInteger();
        CounterStore twoShards = new CounterStore() {
            @Override
            public CompletableFuture<List<Long>> run(LuaScript script, List<String> keys, List<String> args) {
                if (keys.get(0).contains("{slow")) {
                    CompletableFuture<List<Long>> never = new CompletableFuture<>();
                    slowCalls.add(never);
                    return never;
                }
                fastCalls.incrementAndGet();
                return memory.run(script, keys, args);
            }

            @Override
            public String shardOf(String redisKey) {
                return redisKey.startsWith("slow") ? "slow" : "fast";
            }
        };
        CountAfter pod = new CountAfter(twoShards, CountAfterSettings.of(FLUSH), clock::nanos, clock, metrics, false);
        pod.admit("slow-1", List.of(one), false);
        pod.admit("fast-1", List.of(one), false);
        CompletableFuture<Void> first = pod.flush();
        pod.admit("slow-1", List.of(one), false);
        pod.admit("fast-1", List.of(one), false);

        pod.flush().join();

        assertThat(first).as("its slow shard's call is still out").isNotDone();
        assertThat(fastCalls.get()).as("the fast shard took both flushes").isEqualTo(2);
        assertThat(slowCalls).as("the slow shard got no second call while its first was out").hasSize(1);
    }

    /** Admits a key's allowance (10) on a fresh answer. */
    private void admitAllowance(CountAfter pod, String key) {
        for (int i = 0; i < 10; i++) {
            assertThat(pod.admit(key, List.of(one), false)).isInstanceOf(Admission.Admitted.class);
        }
    }

    private double dropped() {
        return metrics.registry().counter(LimiterMetrics.COUNT_AFTER_DROPPED).count();
    }

    private long resent(boolean applied) {
        var counter = metrics.registry().find(LimiterMetrics.COUNT_AFTER_RESENT).tag("applied", Boolean.toString(applied)).counter();
        return counter == null ? 0 : (long) counter.count();
    }

    @Test
    void whileTheStoreIsGoneAFailOpenRuleAdmitsItsAllowanceAfterEveryFailedFlushThenGoesInline() {
        CountAfter pod = pod(CountAfterSettings.of(FLUSH));
        storeGone.set(true);
        for (int flush = 0; flush < 3; flush++) {
            for (int i = 0; i < 10; i++) {
                assertThat(pod.admit("ip-1", List.of(one), false)).isInstanceOf(Admission.Admitted.class);
            }
            assertThat(pod.admit("ip-1", List.of(one), false)).as("past the allowance: inline, where the fail mode answers")
                    .isEqualTo(new Admission.Inline(Admission.Reason.ALLOWANCE_SPENT));
            pod.flush().join();
        }
    }

    @Test
    void aFixedWindowCountsAfterIntoTheInlineWindow() {
        Rule daily = Rule.fixedWindow("ip-daily", "edge", 10, 86_400).withMatch(new Match(null, "/")).withCounting(Counting.AFTER);
        Spend spend = new Spend(daily, 1.0, 1);
        CountAfter pod = pod(CountAfterSettings.of(FLUSH));
        // 10 a day: an allowance of one request per flush answer
        assertThat(pod.admit("ip-1", List.of(spend), false)).isEqualTo(new Admission.Admitted(0));
        assertThat(pod.admit("ip-1", List.of(spend), false)).isInstanceOf(Admission.Inline.class);
        pod.flush().join();
        ScriptCall inline = SpendCall.of("ip-1", List.of(spend), 1, 1, clock.millis());
        assertThat(GroupReply.parse(memory.run(inline.script(), inline.keys(), inline.args()).join(), 1).remaining())
                .as("the inline window holds the counted request and this one").containsExactly(8);
    }

    private boolean admitted(CountAfter pod, String key, Spend spend) {
        Admission admission = pod.admit(key, List.of(spend), false);
        if (admission instanceof Admission.Inline) {
            // the engine checks these inline (where a deny cache, if on, remembers the store's no)
            inlineChecks.incrementAndGet();
            return spendInline(key, spend).allowed();
        }
        return admission instanceof Admission.Admitted;
    }

    private GroupReply spendInline(String key) {
        return spendInline(key, one);
    }

    private GroupReply spendInline(String key, Spend spend) {
        ScriptCall call = SpendCall.of(key, List.of(spend), 1, 1, clock.millis());
        return GroupReply.parse(store.run(call.script(), call.keys(), call.args()).join(), 1);
    }

    private CountAfter pod(CountAfterSettings settings) {
        return new CountAfter(store, settings, clock::nanos, clock, metrics, false);
    }
}
