package dev.tollgate.limiter.local;

import dev.tollgate.common.rule.Limit;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.store.script.Spend;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class LocalBucketsTest {

    private final AtomicLong nanos = new AtomicLong(0);
    private final LocalBuckets buckets = new LocalBuckets(Duration.ofMinutes(1), 1_000, nanos::get);

    @Test
    void holdsTheKeysWholeRateAndBurstSoAPinnedClientGetsItsFullLimit() {
        Spend enterprise = new Spend(Rule.tokenBucket("enterprise", "d", 1_000, 2_000), 1.0, 1);
        int passed = 0;
        for (int i = 0; i < 5_000; i++) {
            if (buckets.trySpend("acct", List.of(enterprise)) == 0) {
                passed++;
            }
        }
        assertThat(passed).isEqualTo(2_000);
        nanos.addAndGet(Duration.ofSeconds(1).toNanos());
        passed = 0;
        for (int i = 0; i < 5_000; i++) {
            if (buckets.trySpend("acct", List.of(enterprise)) == 0) {
                passed++;
            }
        }
        assertThat(passed).as("1,000/s for one pinned pod, not 2 × 1,000 ÷ 50 = 40/s").isEqualTo(1_000);
    }

    @Test
    void cutsAFloodToRatePlusBurstAndSaysWhenToRetry() {
        Spend free = new Spend(Rule.tokenBucket("free", "d", 10, 20), 1.0, 1);
        int passed = 0;
        long retry = 0;
        for (int i = 0; i < 100_000; i++) {
            long r = buckets.trySpend("bot", List.of(free));
            if (r == 0) {
                passed++;
            } else {
                retry = r;
            }
        }
        assertThat(passed).isEqualTo(20);
        assertThat(retry).isEqualTo(100);
    }

    @Test
    void aRaisedLimitGetsABucketOfItsOwnSize() {
        Rule growth = Rule.tokenBucket("growth", "d", 1, 1);
        assertThat(buckets.trySpend("acct", List.of(new Spend(growth, 1.0, 1)))).isZero();
        assertThat(buckets.trySpend("acct", List.of(new Spend(growth, 1.0, 1)))).isPositive();
        assertThat(buckets.trySpend("acct", List.of(new Spend(growth.withLimit(Limit.TokenBucket.perSecond(100, 200)), 1.0, 1)))).isZero();
    }
}
