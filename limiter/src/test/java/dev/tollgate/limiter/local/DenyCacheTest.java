package dev.tollgate.limiter.local;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class DenyCacheTest {

    private final AtomicLong nanos = new AtomicLong(0);
    private final DenyCache cache = new DenyCache(Duration.ofSeconds(1), 1_000, nanos::get);

    @Test
    void deniesUntilTheHoldEndsThenAsksTheStoreAgain() {
        cache.deny("free", "acct_1", 1, 80, 80);
        assertThat(cache.retryMs("free", "acct_1", 1)).isEqualTo(80);
        nanos.addAndGet(Duration.ofMillis(79).toNanos());
        assertThat(cache.retryMs("free", "acct_1", 1)).isEqualTo(1);
        nanos.addAndGet(Duration.ofMillis(1).toNanos());
        assertThat(cache.retryMs("free", "acct_1", 1)).isZero();
    }

    @Test
    void onlyTheDeniedLimitOfThatKeyIsRemembered() {
        cache.deny("free", "acct_1", 1, 80, 80);
        assertThat(cache.retryMs("free", "acct_2", 1)).isZero();
        assertThat(cache.retryMs("route", "acct_1", 1)).isZero();
    }

    @Test
    void aLongWaitIsTrustedForAtMostTheCapButToldInFull() {
        // a bucket of one token a minute: the pod asks again after a second, so a raised limit
        // is seen, but the client is told the store's true wait, not the cap
        cache.deny("export-route", "acct_1", 1, 56_314, 56_314);
        assertThat(cache.retryMs("export-route", "acct_1", 1)).isEqualTo(56_314);
        nanos.addAndGet(Duration.ofMillis(400).toNanos());
        assertThat(cache.retryMs("export-route", "acct_1", 1)).isEqualTo(55_914);
        nanos.addAndGet(Duration.ofMillis(600).toNanos());
        assertThat(cache.retryMs("export-route", "acct_1", 1)).isZero();
    }

    @Test
    void aDenyOfALargeCostLeavesSmallerCostsToTheStore() {
        // 5 tokens left, a cost-10 request denied; a cost-1 request would pass in the store
        cache.deny("bulk", "acct_1", 10, 1_000, 5_000);
        assertThat(cache.retryMs("bulk", "acct_1", 1)).isZero();
        assertThat(cache.retryMs("bulk", "acct_1", 10)).isEqualTo(5_000);
        assertThat(cache.retryMs("bulk", "acct_1", 20)).isEqualTo(5_000);
    }

    @Test
    void theLaterOfTwoHoldsForOneCostWins() {
        cache.deny("free", "acct_1", 1, 500, 100);
        cache.deny("free", "acct_1", 1, 100, 100);
        nanos.addAndGet(Duration.ofMillis(200).toNanos());
        assertThat(cache.retryMs("free", "acct_1", 1)).isEqualTo(300);
    }
}
