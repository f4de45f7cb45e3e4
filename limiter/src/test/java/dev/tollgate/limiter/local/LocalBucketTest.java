package dev.tollgate.limiter.local;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LocalBucketTest {

    @Test
    void startsFullSpendsAndRefillsWithTime() {
        LocalBucket bucket = new LocalBucket(10, 20, 0);
        for (int i = 0; i < 20; i++) {
            assertThat(bucket.tryConsume(1, 0)).isTrue();
        }
        assertThat(bucket.tryConsume(1, 0)).isFalse();
        assertThat(bucket.nanosUntil(1, 0)).isEqualTo(100_000_000L);
        assertThat(bucket.tryConsume(1, 99_000_000L)).isFalse();
        assertThat(bucket.tryConsume(1, 100_000_000L)).isTrue();
        assertThat(bucket.available(10_000_000_000L)).isEqualTo(20);
    }

    @Test
    void aDeniedSpendSpendsNothing() {
        LocalBucket bucket = new LocalBucket(1, 5, 0);
        assertThat(bucket.tryConsume(6, 0)).isFalse();
        assertThat(bucket.available(0)).isEqualTo(5);
    }

    @Test
    void aRefundNeverOverfills() {
        LocalBucket bucket = new LocalBucket(1, 5, 0);
        bucket.refund(3);
        assertThat(bucket.available(0)).isEqualTo(5);
    }

    @Test
    void refusesANonPositiveRate() {
        assertThatThrownBy(() -> new LocalBucket(0, 5, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
