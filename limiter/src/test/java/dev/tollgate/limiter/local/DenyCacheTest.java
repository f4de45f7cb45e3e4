package dev.tollgate.limiter.local;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class DenyCacheTest {

    private final AtomicLong nanos = new AtomicLong(0);
    private final DenyCache cache = new DenyCache(Duration.ofSeconds(1), 1_000, nanos::get);

    @Test
    void deniesUntilTheRetryTimeThenAsksTheStoreAgain() {
        cache.deny("free", "acct_1", 80);
        assertThat(cache.remainingMs("free", "acct_1")).isEqualTo(80);
        nanos.addAndGet(Duration.ofMillis(79).toNanos());
        assertThat(cache.remainingMs("free", "acct_1")).isEqualTo(1);
        nanos.addAndGet(Duration.ofMillis(1).toNanos());
        assertThat(cache.remainingMs("free", "acct_1")).isZero();
    }

    @Test
    void onlyTheDeniedLimitOfThatKeyIsRemembered() {
        cache.deny("free", "acct_1", 80);
        assertThat(cache.remainingMs("free", "acct_2")).isZero();
        assertThat(cache.remainingMs("route", "acct_1")).isZero();
    }

    @Test
    void aLongRetryIsRememberedForAtMostTheCap() {
        // a daily quota exhausted until midnight: ask again every second, so a raised limit is seen
        cache.deny("daily", "acct_1", 6 * 3_600_000L);
        assertThat(cache.remainingMs("daily", "acct_1")).isEqualTo(1_000);
    }

    @Test
    void theLaterOfTwoDeniesWins() {
        cache.deny("free", "acct_1", 500);
        cache.deny("free", "acct_1", 100);
        assertThat(cache.remainingMs("free", "acct_1")).isEqualTo(500);
    }
}
