package dev.tollgate.limiter.breaker;

import dev.tollgate.common.rule.Rule;
import dev.tollgate.store.script.Spend;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class FallbackBucketsTest {

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final FallbackBuckets fallback = new FallbackBuckets(nanos::get);

    @Test
    void admitsTwiceTheFairShareOfTheBurstPerPod() {
        // Enterprise: 1,000/s, burst 2,000 over 50 pods: 2,000 ÷ 50 × 2 = 80 at once
        Spend spend = new Spend(Rule.tokenBucket("enterprise", "d", 1_000, 2_000), 1.0, 1);
        int admitted = 0;
        for (int i = 0; i < 200; i++) {
            if (fallback.spend("s", "acct", List.of(spend), 50).allowed()) {
                admitted++;
            }
        }
        assertThat(admitted).isEqualTo(80);
        // and refills at 1,000 ÷ 50 × 2 = 40/s
        nanos.addAndGet(1_000_000_000L);
        admitted = 0;
        for (int i = 0; i < 200; i++) {
            if (fallback.spend("s", "acct", List.of(spend), 50).allowed()) {
                admitted++;
            }
        }
        assertThat(admitted).isEqualTo(40);
    }

    @Test
    void spendsAllOrNothingAcrossTheGroup() {
        Spend big = new Spend(Rule.tokenBucket("account", "d", 100, 200), 1.0, 1);
        Spend small = new Spend(Rule.tokenBucket("route", "d", 1, 1), 1.0, 1);
        assertThat(fallback.spend("s", "k", List.of(big, small), 1).allowed()).isTrue();
        assertThat(fallback.spend("s", "k", List.of(big, small), 1).allowed()).isTrue();
        FallbackBuckets.Answer denied = fallback.spend("s", "k", List.of(big, small), 1);
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.retryMs()).isBetween(1L, 500L);
        // the account bucket got its token back: 400 - 2 spent
        assertThat(fallback.spend("s", "k", List.of(big), 1).remaining()[0]).isEqualTo(397);
    }

    @Test
    void aKeyThatMovesToANewShardKeepsItsBucket() {
        // a failover: the key's slot now belongs to the promoted replica, whose breaker opens too
        Spend spend = new Spend(Rule.tokenBucket("r", "d", 1, 1), 1.0, 1);
        assertThat(fallback.spend("old-primary", "k", List.of(spend), 1).allowed()).isTrue();
        assertThat(fallback.spend("old-primary", "k", List.of(spend), 1).allowed()).isTrue();
        assertThat(fallback.spend("promoted", "k", List.of(spend), 1).allowed()).as("no second burst").isFalse();
        fallback.drop("old-primary");
        assertThat(fallback.spend("promoted", "k", List.of(spend), 1).allowed()).isFalse();
        fallback.drop("promoted");
        assertThat(fallback.spend("promoted", "k", List.of(spend), 1).allowed()).isTrue();
    }

    @Test
    void droppingAShardStartsItsKeysFromFullBuckets() {
        Spend spend = new Spend(Rule.tokenBucket("r", "d", 1, 1), 1.0, 1);
        assertThat(fallback.spend("s", "k", List.of(spend), 1).allowed()).isTrue();
        assertThat(fallback.spend("s", "k", List.of(spend), 1).allowed()).isTrue();
        assertThat(fallback.spend("s", "k", List.of(spend), 1).allowed()).isFalse();
        fallback.drop("s");
        assertThat(fallback.spend("s", "k", List.of(spend), 1).allowed()).isTrue();
    }

    @Test
    void aFloodOfKeysEvictsColdKeysNeverTheHotOnesBurst() {
        // review M1: past the size bound the map used to be cleared, handing every key a fresh burst
        FallbackBuckets bounded = new FallbackBuckets(nanos::get, 100);
        Spend spend = new Spend(Rule.tokenBucket("r", "d", 1, 5), 1.0, 1);
        while (bounded.spend("s", "hot", List.of(spend), 1).allowed()) {
            // drain the hot key's bucket
        }
        for (int i = 0; i < 5_000; i++) {
            bounded.spend("s", "cold-" + i, List.of(spend), 1);
            if (i % 10 == 0) {
                assertThat(bounded.spend("s", "hot", List.of(spend), 1).allowed()).as("hot key after %d cold keys", i).isFalse();
            }
        }
        assertThat(bounded.size()).isLessThanOrEqualTo(100);
    }

    @Test
    void bucketsOfAShardThatNeverReturnsLeaveWhenIdle() {
        Spend spend = new Spend(Rule.tokenBucket("r", "d", 1, 1), 1.0, 1);
        fallback.spend("gone", "k", List.of(spend), 1);
        assertThat(fallback.size()).isEqualTo(1);
        nanos.addAndGet(FallbackBuckets.IDLE.plusSeconds(1).toNanos());
        assertThat(fallback.size()).isZero();
    }
}
