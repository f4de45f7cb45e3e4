package dev.tollgate.store;

import dev.tollgate.common.rule.Limit;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.store.key.RedisKeys;
import dev.tollgate.store.script.CountAfterCall;
import dev.tollgate.store.script.FixedWindows;
import dev.tollgate.store.script.GroupReply;
import dev.tollgate.store.script.LeaseAsker;
import dev.tollgate.store.script.Peek;
import dev.tollgate.store.script.Refunds;
import dev.tollgate.store.script.ScriptCall;
import dev.tollgate.store.script.Spend;
import dev.tollgate.store.script.SpendCall;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

/**
 * What every counter store must answer, run against each (as Bucket4j tests every backend with one
 * suite): {@link InMemoryCounterStoreTest} and {@code RedisCounterStoreContractIT} on a real cluster. Rates
 * are slow (per day) so that the milliseconds between calls on a real store refill nothing.
 */
abstract class CounterStoreContract {

    /** One token a day, burst 3. */
    private final Rule daily = Rule.of("daily", "api", new Limit.TokenBucket(1, 86_400, 3));
    private final Rule route = Rule.of("route", "api", new Limit.TokenBucket(1, 86_400, 1));
    private final Rule big = Rule.tokenBucket("big", "api", 1_000, 2_000);
    /** Burst 2,000 that refills a token a day, so the asker tests' exact shares hold on a real store's clock too. */
    private final Rule wide = Rule.of("wide", "api", new Limit.TokenBucket(1, 86_400, 2_000));
    private final Rule login = Rule.slidingLog("login", "auth", 2, 60);
    private final Rule quota = Rule.fixedWindow("quota", "api", 2, 86_400);

    abstract CounterStore store();

    /** Lets {@code ms} pass on the store's clock: a real store's by waiting, the in-memory one's by moving it. */
    abstract void pass(long ms) throws InterruptedException;

    /** How long the asker tests' leases live: long enough for a real store's calls to land within it. */
    private static final long ASKER_TTL_MS = 1_000;

    @Test
    void aBucketSpendsWholeTokensAndADenySpendsNothing() {
        String key = key();
        for (long left = 2; left >= 0; left--) {
            GroupReply reply = bucket(key, 1, 1, spend(daily));
            assertThat(reply.granted()).isEqualTo(1);
            assertThat(reply.remaining()).containsExactly(left);
        }
        GroupReply denied = bucket(key, 1, 1, spend(daily));
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.retryMs()).isBetween(86_000_000L, 86_400_000L);
        assertThat(denied.holdMs()).isGreaterThanOrEqualTo(denied.retryMs());
        assertThat(denied.remaining()).containsExactly(0);
    }

    @Test
    void bucketsOfOneGroupSpendAllOrNothing() {
        String key = key();
        assertThat(bucket(key, 1, 1, spend(daily), spend(route)).allowed()).isTrue();
        GroupReply denied = bucket(key, 1, 1, spend(daily), spend(route));
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.remaining()).as("the account bucket kept its tokens").containsExactly(2, 0);
    }

    @Test
    void aLeaseIsTheDesignsShareOfWhatIsLeft() {
        // Enterprise, burst 2,000 on 50 pods: min(50, 2,000 / (2 x 50)) = 20
        assertThat(bucket(key(), 50, 50, spend(big)).granted()).isEqualTo(20);
    }

    @Test
    void aLeaseIsSizedForThePodsThatAskTheKeyNotTheFleet() {
        String key = key();
        // Enterprise, burst 2,000, asked by 2 pods of 50: min(50, 2,000 / (2 x 2)) = 50 where the fleet gives 20
        assertThat(asked(key, "pod-a", 10_000, 50).granted()).as("alone: half of what is left").isEqualTo(1_000);
        assertThat(asked(key, "pod-b", 10_000, 50).granted()).as("two askers: a quarter of the 1,000 left").isEqualTo(250);
        assertThat(asked(key, "pod-a", 10_000, 50).granted()).as("its second ask counts it once").isEqualTo(187);
        String other = key();
        asked(other, "pod-a", 50, 50);
        assertThat(asked(other, "pod-b", 50, 50).granted()).as("2 askers of 50 pods: the lease the design wants").isEqualTo(50);
    }

    @Test
    void aThirdPodJoiningIsServedFromTheHalfLeftByTheOthers() {
        String key = key();
        asked(key, "pod-a", 10_000, 50);
        asked(key, "pod-b", 10_000, 50);
        GroupReply third = asked(key, "pod-c", 10_000, 50);
        assertThat(third.granted()).as("750 left over three askers: 750 / 6").isEqualTo(125);
        assertThat(third.remaining()).containsExactly(625);
        assertThat(asked(key, "pod-a", 10_000, 50).granted()).as("the others now share with it: 625 / 6").isEqualTo(104);
    }

    @Test
    void anAskerOlderThanALeaseNoLongerCounts() throws InterruptedException {
        String key = key();
        asked(key, "pod-a", 10_000, 50);
        pass(ASKER_TTL_MS + 100);
        assertThat(asked(key, "pod-b", 10_000, 50).granted()).as("pod-a's lease is over: pod-b asks alone, 1,000 / 2").isEqualTo(500);
    }

    @Test
    void askersAreNeverMoreThanTheLivePods() {
        String key = key();
        asked(key, "pod-a", 10_000, 2);
        asked(key, "pod-b", 10_000, 2);
        // 750 left, three askers but two live pods: 750 / (2 x 2)
        assertThat(asked(key, "pod-c", 10_000, 2).granted()).isEqualTo(187);
    }

    @Test
    void anExactCheckIsNoAsker() {
        String key = key();
        for (String pod : List.of("pod-a", "pod-b", "pod-c")) {
            assertThat(call(SpendCall.of(key, List.of(spend(wide)), 1, 50, new LeaseAsker(pod, ASKER_TTL_MS), 0)).granted()).isEqualTo(1);
        }
        assertThat(asked(key, "pod-d", 10_000, 50).granted()).as("alone among lease askers: 1,997 / 2").isEqualTo(998);
    }

    @Test
    void aRefundKeepsTheBucketsAskers() {
        String key = key();
        ScriptCall first = SpendCall.of(key, List.of(spend(wide)), 10_000, 50, new LeaseAsker("pod-a", ASKER_TTL_MS), 0);
        GroupReply granted = call(first);
        ScriptCall refund = Refunds.of(first, List.of(spend(wide)), granted);
        store().run(refund.script(), refund.keys(), refund.args()).join();
        // the refund gave back one request of the lease's 1,000: 1,001 left, and pod-a still counts
        assertThat(asked(key, "pod-b", 10_000, 50).granted()).as("1,001 / (2 x 2)").isEqualTo(250);
    }

    @Test
    void aSlidingLogCountsAcceptedEventsAndStampsItsMembers() {
        String key = key();
        GroupReply first = call(logCall(key));
        assertThat(first.allowed()).isTrue();
        assertThat(first.stamp()).isPositive();
        assertThat(call(logCall(key)).remaining()).containsExactly(0);
        GroupReply denied = call(logCall(key));
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.retryMs()).isBetween(59_000L, 60_000L);
    }

    @Test
    void aFixedWindowIsNamedByTheStoresClock() {
        String key = key();
        // named by a clock far off: the store answers with its own time, and the call is renamed from it
        ScriptCall far = SpendCall.of(key, List.of(spend(quota)), 1, 1, 0);
        List<Long> wrong = store().run(far.script(), far.keys(), far.args()).join();
        assertThat(FixedWindows.movedTo(wrong)).isPresent();
        ScriptCall named = SpendCall.of(key, List.of(spend(quota)), 1, 1, FixedWindows.movedTo(wrong).getAsLong());
        assertThat(call(named).remaining()).containsExactly(1);
        assertThat(call(named).remaining()).containsExactly(0);
        assertThat(call(named).allowed()).isFalse();
    }

    @Test
    void limitsOfOneKeySpendAllOrNothingWhateverTheirAlgorithm() {
        String key = key();
        // the window holds 2 and the log 2: two requests spend from all three limits
        for (int i = 0; i < 2; i++) {
            GroupReply reply = mixed(key);
            assertThat(reply.allowed()).isTrue();
            assertThat(reply.remaining()).containsExactly(2 - i, 1 - i, 1 - i);
        }
        GroupReply denied = mixed(key);
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.retryMs()).as("the longer of the log's wait and the window's").isBetween(1L, 86_400_000L);
        assertThat(denied.holdMs()).isGreaterThanOrEqualTo(denied.retryMs());
        assertThat(denied.remaining()).as("the bucket kept its token").containsExactly(1, 0, 0);
        assertThat(bucket(key, 1, 1, spend(daily)).remaining()).as("spent by the two admitted requests only").containsExactly(0);
    }

    @Test
    void aLeaseIsNeverGrantedOverALogOrAWindow() {
        ScriptCall call = SpendCall.of(key(), List.of(spend(big), spend(login)), 50, 1, 0);
        assertThat(call(call).granted()).isEqualTo(1);
    }

    @Test
    void anUnknownKindIsAScriptError() {
        assertThatThrownBy(() -> store().run(LuaScript.SPEND, List.of("rl:{" + key() + "}:x"), List.of("1", "1", "bogus", "1", "1", "1", "1")).join())
                .isInstanceOf(CompletionException.class)
                .hasRootCauseInstanceOf(StoreException.class);
    }

    /** A bucket, a fixed window and a sliding log of one key in one call, its window named by the store's clock. */
    private GroupReply mixed(String key) {
        List<Spend> spends = List.of(spend(daily), spend(quota), spend(login));
        ScriptCall far = SpendCall.of(key, spends, 1, 1, 0);
        long storeNow = FixedWindows.movedTo(store().run(far.script(), far.keys(), far.args()).join()).orElseThrow();
        return call(SpendCall.of(key, spends, 1, 1, storeNow));
    }

    @Test
    void aRefundGivesBackExactlyWhatTheSpendTook() {
        String key = key();
        ScriptCall spendBucket = SpendCall.of(key, List.of(spend(daily)), 1, 1, 0);
        GroupReply spent = call(spendBucket);
        store().run(LuaScript.REFUND, spendBucket.keys(), Refunds.of(spendBucket, List.of(spend(daily)), spent).args()).join();
        assertThat(bucket(key, 1, 1, spend(daily)).remaining()).as("3 again before this spend").containsExactly(2);

        ScriptCall spendLog = logCall(key);
        GroupReply logged = call(spendLog);
        store().run(LuaScript.REFUND, spendLog.keys(), Refunds.of(spendLog, List.of(spend(login)), logged).args()).join();
        assertThat(call(spendLog).remaining()).as("the refunded attempt no longer counts").containsExactly(1);
    }

    /** Cost 0 looks: granted while the limit could take one more request, denied when it could not, and nothing spent. */
    @Test
    void aLookAtCostZeroSpendsNothingOnAnyKind() {
        String key = key();
        Spend lookAtDaily = new Spend(daily, 1.0, 0);
        Spend lookAtLogin = new Spend(login, 1.0, 0);
        Spend lookAtQuota = new Spend(quota, 1.0, 0);
        for (int i = 0; i < 3; i++) {
            GroupReply looked = lookAtAll(key, lookAtDaily, lookAtQuota, lookAtLogin);
            assertThat(looked.allowed()).isTrue();
            assertThat(looked.remaining()).as("nothing spent by looking").containsExactly(3, 2, 2);
        }
        // spend each limit down to nothing, then look again
        for (int i = 0; i < 2; i++) {
            assertThat(mixed(key).allowed()).isTrue();
        }
        GroupReply denied = lookAtAll(key, lookAtDaily, lookAtQuota, lookAtLogin);
        assertThat(denied.allowed()).as("the window and the log could not take one more").isFalse();
        assertThat(denied.retryMs()).isPositive();
        assertThat(denied.remaining()).containsExactly(1, 0, 0);

        String drained = key();
        for (int i = 0; i < 3; i++) {
            bucket(drained, 1, 1, spend(daily));
        }
        GroupReply empty = bucket(drained, 1, 1, lookAtDaily);
        assertThat(empty.allowed()).isFalse();
        assertThat(empty.retryMs()).as("when one token is due").isBetween(1L, 86_400_000L);
        assertThat(empty.holdMs()).as("a look takes no place in the deny queue").isEqualTo(empty.retryMs());
        assertThat(bucket(key(), 50, 50, lookAtDaily).granted()).as("a look is never a lease").isEqualTo(1);
    }

    private GroupReply lookAtAll(String key, Spend... spends) {
        ScriptCall far = SpendCall.of(key, List.of(spends), 1, 1, 0);
        long storeNow = FixedWindows.movedTo(store().run(far.script(), far.keys(), far.args()).join()).orElseThrow();
        return call(SpendCall.of(key, List.of(spends), 1, 1, storeNow));
    }

    /**
     * A peek tells each limit's level as the next spend would find it, and changes nothing: peeking between
     * spends leaves every spend's answer what it would have been, and a key never written stays unwritten.
     */
    @Test
    void aPeekReadsEachLimitAsTheSpendWouldAndWritesNothing() {
        String key = key();
        List<Spend> spends = List.of(spend(daily), spend(quota), spend(login));
        assertThat(peek(key, spends)).as("nothing stored yet: full")
                .extracting(Peek.Level::remaining, Peek.Level::limit, Peek.Level::stored)
                .containsExactly(tuple(3L, 3L, false), tuple(2L, 2L, false),
                        tuple(2L, 2L, false));
        assertThat(peek(key, spends)).extracting(Peek.Level::stored).as("a peek wrote nothing").containsOnly(false);

        GroupReply spent = mixed(key);
        List<Peek.Level> levels = peek(key, spends);
        assertThat(levels).extracting(Peek.Level::remaining).containsExactly(spent.remaining()[0], spent.remaining()[1], spent.remaining()[2]);
        assertThat(levels).extracting(Peek.Level::stored).containsOnly(true);
        assertThat(levels.get(0).redisKey()).isEqualTo("rl:{" + key + "}:daily");
        assertThat(levels.get(0).resetMs()).as("a day's token to refill").isBetween(86_000_000L, 86_400_000L);
        assertThat(levels.get(2).resetMs()).as("the attempt leaves the minute's log").isBetween(59_000L, 60_000L);
        for (int i = 0; i < 3; i++) {
            peek(key, spends);
        }
        assertThat(mixed(key).remaining()).as("the peeks spent nothing").containsExactly(1, 0, 0);
        assertThat(peek(key, spends)).extracting(Peek.Level::remaining).containsExactly(1L, 0L, 0L);
    }

    private List<Peek.Level> peek(String key, List<Spend> spends) {
        ScriptCall far = SpendCall.of(key, spends, 1, 1, 0);
        long storeNow = FixedWindows.movedTo(store().run(far.script(), far.keys(), far.args()).join()).orElseThrow();
        ScriptCall peek = Peek.of(key, spends, storeNow);
        return Peek.levels(peek, spends, store().run(peek.script(), peek.keys(), peek.args()).join());
    }

    @Test
    void aScriptOverTwoSlotsIsRefused() {
        ScriptCall one = SpendCall.of(key(), List.of(spend(daily)), 1, 1, 0);
        ScriptCall other = SpendCall.of(key(), List.of(spend(route)), 1, 1, 0);
        List<String> keys = List.of(one.keys().get(0), other.keys().get(0));
        List<String> args = new java.util.ArrayList<>(one.args());
        args.addAll(other.args().subList(2, other.args().size()));
        assertThatThrownBy(() -> store().run(LuaScript.SPEND, keys, args).join())
                .isInstanceOf(CompletionException.class)
                .hasRootCauseInstanceOf(StoreException.class);
    }

    @Test
    void countsAfterIntoTheBucketTheInlineSpendReadsAndSaysWhenItIsOver() {
        String key = key();
        CountAfterCall.Reply counted = countAfter(new CountAfterCall.Entry(key, spend(daily), 2));
        assertThat(counted.over()).as("one of three tokens is left").isEmpty();
        assertThat(bucket(key, 1, 1, spend(daily)).remaining()).as("the inline spend reads the counted tokens").containsExactly(0);

        CountAfterCall.Reply asked = countAfter(new CountAfterCall.Entry(key, spend(daily), 0));
        assertThat(asked.over()).singleElement().satisfies(over -> {
            assertThat(over.entry()).isZero();
            assertThat(over.waitMs()).as("one token a day").isBetween(86_000_000L, 86_400_000L);
        });
        assertThat(asked.storeNowMs()).isPositive();
    }

    @Test
    void aBucketCountedPastEmptyOwesTheTokensAndStaysOverUntilTheRefillPaysThem() {
        String key = key();
        // 3 tokens, 10 admitted: the whole debt (-7) is kept, so one token is due after 8 days of refill; a floor
        // would forgive what the pods admitted past it
        CountAfterCall.Reply counted = countAfter(new CountAfterCall.Entry(key, spend(daily), 10));
        assertThat(counted.over()).singleElement().satisfies(over -> assertThat(over.waitMs()).isBetween(8 * 86_000_000L, 8 * 86_400_000L));
        ScriptCall look = Peek.of(key, List.of(spend(daily)), 0);
        assertThat(Peek.levels(look, List.of(spend(daily)), store().run(look.script(), look.keys(), look.args()).join()))
                .as("a look sees the debt as stored, not as a bucket never written")
                .singleElement().satisfies(level -> {
                    assertThat(level.stored()).isTrue();
                    assertThat(level.remaining()).isEqualTo(-7);
                });
        assertThat(bucket(key, 1, 1, spend(daily)).allowed()).as("the inline spend sees the debt").isFalse();
    }

    @Test
    void aFixedWindowCountsPastItsLimitAndIsOverUntilTheWindowEnds() {
        String key = key();
        long now = storeNow();
        CountAfterCall.Reply counted = countAfter(now, new CountAfterCall.Entry(key, spend(quota), 3));
        assertThat(counted.over()).singleElement().satisfies(over -> assertThat(over.waitMs()).isBetween(1L, 86_400_000L));
        assertThat(call(SpendCall.of(key, List.of(spend(quota)), 1, 1, now)).allowed()).as("the inline spend sees the count").isFalse();
    }

    @Test
    void oneCallCountsKeysOfManySlotsOnOneShardAndNamesOnlyThoseOver() {
        List<String> keys = keysOnOneShard(3);
        CountAfterCall.Reply counted = countAfter(new CountAfterCall.Entry(keys.get(0), spend(daily), 1),
                new CountAfterCall.Entry(keys.get(1), spend(daily), 3), new CountAfterCall.Entry(keys.get(2), spend(route), 1));

        assertThat(counted.over()).extracting(CountAfterCall.Reply.Over::entry).containsExactly(1, 2);
        assertThat(bucket(keys.get(0), 1, 1, spend(daily)).remaining()).containsExactly(1);
    }

    @Test
    void aCountAfterCallSentTwiceCountsOnceAndItsResendAnswersTheFirstRunsVerdicts() {
        List<String> keys = keysOnOneShard(2);
        ScriptCall call = CountAfterCall.of(List.of(new CountAfterCall.Entry(keys.get(0), spend(daily), 2),
                new CountAfterCall.Entry(keys.get(1), spend(daily), 10)), 0, "pod-a:" + UUID.randomUUID(), 60_000);
        CountAfterCall.Reply first = run(call);
        assertThat(first.replayed()).isFalse();
        assertThat(first.over()).as("the second key owes 7 tokens: over for 8 days").singleElement().satisfies(over -> {
            assertThat(over.entry()).isEqualTo(1);
            assertThat(over.waitMs()).isBetween(8 * 86_000_000L, 8 * 86_400_000L);
        });

        CountAfterCall.Reply resent = run(call);

        assertThat(resent.replayed()).as("the store had run this call").isTrue();
        assertThat(resent.over()).as("the first run's verdicts, their waits as of now").singleElement().satisfies(over -> {
            assertThat(over.entry()).isEqualTo(1);
            assertThat(over.waitMs()).isBetween(8 * 86_000_000L, first.over().get(0).waitMs());
        });
        assertThat(bucket(keys.get(0), 1, 1, spend(daily)).remaining()).as("2 of 3 tokens counted once: the last one left")
                .containsExactly(0);
        ScriptCall other = CountAfterCall.of(List.of(new CountAfterCall.Entry(keys.get(0), spend(daily), 1)), 0,
                "pod-a:" + UUID.randomUUID(), 60_000);
        assertThat(run(other).over()).as("another call id counts: one token of debt").singleElement()
                .satisfies(over -> assertThat(over.waitMs()).isBetween(2 * 86_000_000L, 2 * 86_400_000L));
    }

    @Test
    void aCountAfterCallCountsAgainOnceItsMarkerHasExpired() throws InterruptedException {
        String key = key();
        ScriptCall call = CountAfterCall.of(List.of(new CountAfterCall.Entry(key, spend(daily), 1)), 0, "pod-a:" + UUID.randomUUID(), 100);
        run(call);
        pass(300);
        assertThat(run(call).replayed()).isFalse();
        assertThat(bucket(key, 1, 1, spend(daily)).remaining()).as("counted twice: a resend must come within the marker's life")
                .containsExactly(0);
    }

    @Test
    void countAfterRefusesAnUnknownKind() {
        String key = key();
        assertThatThrownBy(() -> store().run(CountAfterCall.COUNT_AFTER, List.of("rl:{" + key + "}:x", "tg:{" + key + "}:flush:1"),
                List.of("1", "1000", "bogus", "rl:{" + key + "}:x", "1", "1", "1", "1", "1")).join())
                .isInstanceOf(CompletionException.class)
                .hasRootCauseInstanceOf(StoreException.class);
    }

    private CountAfterCall.Reply countAfter(CountAfterCall.Entry... entries) {
        return countAfter(0, entries);
    }

    private CountAfterCall.Reply countAfter(long nowMs, CountAfterCall.Entry... entries) {
        return run(CountAfterCall.of(List.of(entries), nowMs, "pod-a:" + UUID.randomUUID(), 60_000));
    }

    private CountAfterCall.Reply run(ScriptCall call) {
        return CountAfterCall.Reply.parse(store().run(call.script(), call.keys(), call.args()).join());
    }

    /** The store's clock, as a fixed window named far off learns it. */
    private long storeNow() {
        ScriptCall far = SpendCall.of(key(), List.of(spend(quota)), 1, 1, 0);
        return FixedWindows.movedTo(store().run(far.script(), far.keys(), far.args()).join()).orElseThrow();
    }

    /** Keys of distinct hash tags (so of distinct slots, almost surely) whose slots one primary owns. */
    private List<String> keysOnOneShard(int count) {
        List<String> keys = new java.util.ArrayList<>();
        String first = key();
        String shard = store().shardOf(RedisKeys.hashTag(first));
        keys.add(first);
        while (keys.size() < count) {
            String next = key();
            if (store().shardOf(RedisKeys.hashTag(next)).equals(shard)) {
                keys.add(next);
            }
        }
        return keys;
    }

    private GroupReply bucket(String key, int want, int pods, Spend... spends) {
        return call(SpendCall.of(key, List.of(spends), want, pods, 0));
    }

    private GroupReply asked(String key, String pod, int want, int pods) {
        return call(SpendCall.of(key, List.of(spend(wide)), want, pods, new LeaseAsker(pod, ASKER_TTL_MS), 0));
    }

    private ScriptCall logCall(String key) {
        return SpendCall.of(key, List.of(spend(login)), 1, 1, 0);
    }

    private GroupReply call(ScriptCall call) {
        return GroupReply.parse(store().run(call.script(), call.keys(), call.args()).join(), call.keys().size());
    }

    private static Spend spend(Rule rule) {
        return new Spend(rule, 1.0, 1);
    }

    private static String key() {
        return "contract_" + UUID.randomUUID().toString().substring(0, 8);
    }
}
