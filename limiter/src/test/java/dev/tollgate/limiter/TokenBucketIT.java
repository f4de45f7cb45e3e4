package dev.tollgate.limiter;

import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.common.check.Verdict;
import dev.tollgate.common.rule.Limit;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.store.key.RedisKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static dev.tollgate.limiter.LimiterFixture.check;
import static dev.tollgate.limiter.LimiterFixture.uniqueKey;
import static org.assertj.core.api.Assertions.assertThat;

/** The token bucket script's arithmetic, on a real Redis Cluster. */
class TokenBucketIT {

    private static final Match FREE = new Match("free", null);
    @RegisterExtension
    static final LimiterFixture fixture = new LimiterFixture();

    @Test
    void admitsTheBurstAtOnceThenOneTokenPerTenthOfASecond() throws InterruptedException {
        Rule free = Rule.tokenBucket("free-global", "api", 10, 20).withMatch(FREE).withMaxCost(20);
        Limiter limiter = fixture.limiter(free);
        String key = uniqueKey("acct");

        // each pair of checks goes out back to back: a busy machine's 100 ms between them would refill a token
        List<CheckResponse> drained = backToBack(limiter, key, 20, 1);
        CheckResponse burst = drained.get(0);
        assertThat(burst.verdict()).isEqualTo(Verdict.ALLOW);
        assertThat(burst.entries().get(0).remaining()).isZero();

        CheckResponse denied = drained.get(1);
        assertThat(denied.verdict()).isEqualTo(Verdict.DENY);
        long retry = denied.entries().get(0).retryMs();
        assertThat(retry).isBetween(1L, 100L);
        // a bucket back to full after 20 tokens at 10/s: two seconds
        assertThat(denied.entries().get(0).resetMs()).isBetween(1_900L, 2_000L);

        Thread.sleep(retry);
        List<CheckResponse> refilled = backToBack(limiter, key, 1, 1);
        assertThat(refilled.get(0).verdict()).isEqualTo(Verdict.ALLOW);
        CheckResponse next = refilled.get(1);
        assertThat(next.verdict()).isEqualTo(Verdict.DENY);
        assertThat(next.entries().get(0).retryMs()).isBetween(1L, 100L);
    }

    @Test
    void refillsExactlyInIntegerMilliTokens() {
        Rule free = Rule.tokenBucket("free-global", "api", 10, 20).withMatch(FREE);
        Limiter limiter = fixture.limiter(free);
        String key = uniqueKey("acct");
        String bucket = RedisKeys.limit(key, "free-global");

        long t0 = fixture.redisTimeMs(bucket);
        long start = t0 - 1_234;
        fixture.redis().hset(bucket, Map.of("tokens_milli", "0", "ts_ms", Long.toString(start)));

        assertThat(check(limiter, "api", CheckEntry.of("free-global", key, 1)).verdict()).isEqualTo(Verdict.ALLOW);

        Map<String, String> state = fixture.redis().hgetall(bucket);
        long ts = Long.parseLong(state.get("ts_ms"));
        long tokens = Long.parseLong(state.get("tokens_milli"));
        // 10 milli-tokens per ms since `start`, exactly, minus the one token spent
        assertThat(tokens).isEqualTo((ts - start) * 10 - 1_000);
        assertThat(ts).isGreaterThanOrEqualTo(t0);
        assertThat(state.get("tokens_milli")).doesNotContain(".");
    }

    /**
     * Checks of free-global on the key, one per cost, sent without awaiting each answer: one key's script calls
     * share a connection, so the store runs them in this order, microseconds apart.
     */
    private static List<CheckResponse> backToBack(Limiter limiter, String key, int... costs) {
        List<CompletableFuture<Outcome>> sent = new ArrayList<>();
        for (int cost : costs) {
            sent.add(limiter.check(new CheckRequest("api", List.of(CheckEntry.of("free-global", key, cost)))));
        }
        return sent.stream().map(checked -> checked.join().answered().orElseThrow()).toList();
    }

    @Test
    void aPerMinuteRateCreditsWholeMilliTokensAndNeverEarly() {
        // 5 per minute: one milli-token every 12 ms
        Rule perMinute = Rule.of("free-minute", "api", new Limit.TokenBucket(5, 60, 5)).withMatch(FREE);
        Limiter limiter = fixture.limiter(perMinute);
        String key = uniqueKey("acct");
        String bucket = RedisKeys.limit(key, "free-minute");

        long t0 = fixture.redisTimeMs(bucket);
        long start = t0 - 12_007;
        fixture.redis().hset(bucket, Map.of("tokens_milli", "0", "ts_ms", Long.toString(start)));

        CheckResponse first = check(limiter, "api", CheckEntry.of("free-minute", key, 1));
        assertThat(first.verdict()).isEqualTo(Verdict.ALLOW);
        Map<String, String> state = fixture.redis().hgetall(bucket);
        long ts = Long.parseLong(state.get("ts_ms"));
        long tokens = Long.parseLong(state.get("tokens_milli"));
        // the clock moved by exactly the time the credited milli-tokens took: 12 ms each
        assertThat((ts - start) % 12).isZero();
        assertThat(tokens).isEqualTo((ts - start) / 12 - 1_000);
        // within one milli-token of the script's clock, which ran between the two readings of the store's clock
        assertThat(ts).isGreaterThan(t0 - 12).isLessThanOrEqualTo(fixture.redisTimeMs(bucket));

        // a second request 12 s later would pass; right now the bucket is nearly empty
        CheckResponse second = check(limiter, "api", CheckEntry.of("free-minute", key, 1));
        assertThat(second.verdict()).isEqualTo(Verdict.DENY);
        assertThat(second.entries().get(0).retryMs()).isBetween(11_000L, 12_000L);
    }

    @Test
    void manySmallRefillsNeverDriftAboveTheExactRate() throws InterruptedException {
        // 7 per minute: 8.57 ms per milli-token, a rate no power of ten divides
        Rule odd = Rule.of("odd-rate", "api", new Limit.TokenBucket(7, 60, 7)).withMatch(FREE);
        Limiter limiter = fixture.limiter(odd);
        String key = uniqueKey("acct");
        String bucket = RedisKeys.limit(key, "odd-rate");
        long start = fixture.redisTimeMs(bucket) - 60_000;
        fixture.redis().hset(bucket, Map.of("tokens_milli", "0", "ts_ms", Long.toString(start)));

        int spent = 0;
        for (int i = 0; i < 40; i++) {
            if (check(limiter, "api", CheckEntry.of("odd-rate", key, 1)).allowed()) {
                spent++;
            }
            Thread.sleep(3);
        }
        Map<String, String> state = fixture.redis().hgetall(bucket);
        long ts = Long.parseLong(state.get("ts_ms"));
        long credited = Long.parseLong(state.get("tokens_milli")) + spent * 1_000L;
        long exact = (ts - start) * 7_000 / 60_000;
        assertThat(credited).isLessThanOrEqualTo(exact).isGreaterThan(exact - 1_000);
        assertThat(spent).isEqualTo(7);
    }

    @Test
    void spendsNothingFromTheAccountWhenTheRouteBucketIsEmpty() {
        Rule account = Rule.tokenBucket("growth-global", "api", 100, 200).withMatch(new Match("growth", null));
        Rule route = Rule.tokenBucket("labels-route", "api", 1, 2).withMatch(new Match("growth", "/labels"));
        Limiter limiter = fixture.limiter(account, route);
        String key = uniqueKey("acct");

        for (int i = 0; i < 2; i++) {
            assertThat(check(limiter, "api", CheckEntry.of("growth-global", key, 1), CheckEntry.of("labels-route", key, 1)).allowed()).isTrue();
        }
        String accountBucket = RedisKeys.limit(key, "growth-global");
        long before = Long.parseLong(fixture.redis().hget(accountBucket, "tokens_milli"));

        CheckResponse denied = check(limiter, "api", CheckEntry.of("growth-global", key, 1), CheckEntry.of("labels-route", key, 1));
        assertThat(denied.verdict()).isEqualTo(Verdict.DENY);
        // refill can only have added: nothing was spent from the account bucket
        long after = Long.parseLong(fixture.redis().hget(accountBucket, "tokens_milli"));
        assertThat(after).isGreaterThanOrEqualTo(before);
        assertThat(denied.entries().get(0).remaining()).isEqualTo(after / 1000);
        assertThat(denied.entries().get(1).verdict()).isEqualTo(Verdict.DENY);
    }

    @Test
    void twoEntriesOfTheSameRuleAndKeySpendTheirSum() {
        Rule free = Rule.tokenBucket("free-global", "api", 1, 10).withMatch(FREE).withMaxCost(7);
        Limiter limiter = fixture.limiter(free);
        String key = uniqueKey("acct");
        CheckResponse response = check(limiter, "api", CheckEntry.of("free-global", key, 3), CheckEntry.of("free-global", key, 4));
        assertThat(response.allowed()).isTrue();
        assertThat(response.entries()).allSatisfy(e -> assertThat(e.remaining()).isEqualTo(3));
    }

    @Test
    void setsTheBucketTtlToTwiceTheTimeToFill() {
        Rule free = Rule.tokenBucket("free-global", "api", 10, 20).withMatch(FREE);
        Limiter limiter = fixture.limiter(free);
        String key = uniqueKey("acct");
        check(limiter, "api", CheckEntry.of("free-global", key, 1));
        // 2 × 20 ÷ 10 = 4 s, as the design says for every plan
        assertThat(fixture.redis().pttl(RedisKeys.limit(key, "free-global"))).isBetween(3_900L, 4_000L);
    }
}
