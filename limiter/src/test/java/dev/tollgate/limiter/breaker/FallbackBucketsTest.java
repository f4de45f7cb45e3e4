package dev.tollgate.limiter.breaker;

import dev.tollgate.common.rule.Rule;
import dev.tollgate.store.script.Spend;
import org.junit.jupiter.api.Test;

import java.time.Duration;
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
            if (fallback.spend("acct", List.of(spend), 50).allowed()) {
                admitted++;
            }
        }
        assertThat(admitted).isEqualTo(80);
        // and refills at 1,000 ÷ 50 × 2 = 40/s
        nanos.addAndGet(1_000_000_000L);
        admitted = 0;
        for (int i = 0; i < 200; i++) {
            if (fallback.spend("acct", List.of(spend), 50).allowed()) {
                admitted++;
            }
        }
        assertThat(admitted).isEqualTo(40);
    }

    @Test
    void spendsAllOrNothingAcrossTheGroup() {
        Spend big = new Spend(Rule.tokenBucket("account", "d", 100, 200), 1.0, 1);
        Spend small = new Spend(Rule.tokenBucket("route", "d", 1, 1), 1.0, 1);
        assertThat(fallback.spend("k", List.of(big, small), 1).allowed()).isTrue();
        assertThat(fallback.spend("k", List.of(big, small), 1).allowed()).isTrue();
        FallbackBuckets.Answer denied = fallback.spend("k", List.of(big, small), 1);
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.retryMs()).isBetween(1L, 500L);
        // the account bucket got its token back: 400 - 2 spent
        assertThat(fallback.spend("k", List.of(big), 1).remaining()[0]).isEqualTo(397);
    }

    @Test
    void aKeyKeepsItsBucketWhateverShardItIsOn() {
        // a failover moves the key's slot to the promoted replica, whose breaker opens too: no second burst there,
        // and none when a breaker closes and opens again, or a flapping shard would re-grant the allowance each time
        Spend spend = new Spend(Rule.tokenBucket("r", "d", 1, 1), 1.0, 1);
        assertThat(fallback.spend("k", List.of(spend), 1).allowed()).isTrue();
        assertThat(fallback.spend("k", List.of(spend), 1).allowed()).isTrue();
        assertThat(fallback.spend("k", List.of(spend), 1).allowed()).isFalse();
    }

    @Test
    void aBucketIsForgottenOnlyOnceItWouldBeFullAgain() {
        // 10,000 a day over 2 pods: this pod's 10,000 refill in a day
        Spend daily = new Spend(Rule.fixedWindow("free-daily", "d", 10_000, 86_400), 1.0, 1);
        for (int i = 0; i < 10_000; i++) {
            assertThat(fallback.spend("k", List.of(daily), 2).allowed()).isTrue();
        }
        assertThat(fallback.spend("k", List.of(daily), 2).allowed()).isFalse();

        nanos.addAndGet(Duration.ofHours(12).toNanos());
        assertThat(fallback.size()).as("half refilled: still held").isEqualTo(1);
        assertThat(fallback.spend("k", List.of(daily), 2).remaining()[0]).isBetween(4_998L, 5_000L);

        nanos.addAndGet(Duration.ofDays(1).plusSeconds(1).toNanos());
        assertThat(fallback.size()).as("full again: nothing to remember").isZero();
        assertThat(fallback.spend("k", List.of(daily), 2).remaining()[0]).isEqualTo(9_999);
    }

    @Test
    void aBucketSizedForAnotherPodCountKeepsTheShareItHadLeft() {
        // 100 per second, burst 100: 200 at once for 1 pod, 100 for 2
        Spend spend = new Spend(Rule.tokenBucket("r", "d", 100, 100), 1.0, 1);
        for (int i = 0; i < 150; i++) {
            assertThat(fallback.spend("k", List.of(spend), 1).allowed()).isTrue();
        }
        FallbackBuckets.Answer resized = fallback.spend("k", List.of(spend), 2);
        assertThat(resized.allowed()).isTrue();
        assertThat(resized.remaining()[0]).as("a quarter of 100 left, less this request").isEqualTo(24);
    }

    @Test
    void aFloodOfKeysEvictsColdKeysNeverTheHotOnesBurst() {
        // past the size bound the map used to be cleared, handing every key a fresh burst
        FallbackBuckets bounded = new FallbackBuckets(nanos::get, 100);
        Spend spend = new Spend(Rule.tokenBucket("r", "d", 1, 5), 1.0, 1);
        while (bounded.spend("hot", List.of(spend), 1).allowed()) {
            // drain the hot key's bucket
        }
        for (int i = 0; i < 5_000; i++) {
            bounded.spend("cold-" + i, List.of(spend), 1);
            if (i % 10 == 0) {
                assertThat(bounded.spend("hot", List.of(spend), 1).allowed()).as("hot key after %d cold keys", i).isFalse();
            }
        }
        assertThat(bounded.size()).isLessThanOrEqualTo(100);
    }
}
