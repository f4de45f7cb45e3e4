package dev.tollgate.store.spring;

import dev.tollgate.store.read.BucketShape;
import dev.tollgate.store.read.TokenLevel;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** A bucket read without spending, refilled as spend.lua refills it: 10 tokens/s is 10 milli-tokens per ms. */
class TokenLevelTest {

    private static final BucketShape TEN_PER_SECOND = new BucketShape(10_000, 1_000, 20_000);

    @Test
    void aMissingBucketIsFull() {
        TokenLevel level = read(5_000, null, null, TEN_PER_SECOND);

        assertThat(level.tokens()).isEqualTo(20);
        assertThat(level.stored()).isFalse();
        assertThat(level.redisKey()).isEqualTo("rl:{k}:r");
    }

    @Test
    void refillsSinceTheStoredTimeInWholeMilliTokens() {
        TokenLevel level = read(1_250, 5_000L, 1_000L, TEN_PER_SECOND);

        assertThat(level.milli()).isEqualTo(7_500);
        assertThat(level.tokens()).isEqualTo(7);
        assertThat(level.capacity()).isEqualTo(20);
        assertThat(level.stored()).isTrue();
    }

    @Test
    void neverRefillsAboveTheBurst() {
        assertThat(read(100_000, 5_000L, 1_000L, TEN_PER_SECOND).milli()).isEqualTo(20_000);
        assertThat(read(Long.MAX_VALUE / 2, 0L, 0L, TEN_PER_SECOND).milli()).isEqualTo(20_000);
    }

    @Test
    void aTimestampAheadOfTheStoreClockRefillsNothing() {
        assertThat(read(1_000, 5_000L, 2_000L, TEN_PER_SECOND).milli()).isEqualTo(5_000);
    }

    @Test
    void aStoredLevelAboveAShrunkenBurstIsCappedAtTheBurst() {
        assertThat(read(1_000, 50_000L, 1_000L, TEN_PER_SECOND).milli()).isEqualTo(20_000);
    }

    @Test
    void aPerMinuteRateRefillsFractionsOfATokenPerMillisecond() {
        // 5 per minute: 5,000 milli-tokens per 60,000 ms
        assertThat(read(13_000, 0L, 1_000L, new BucketShape(5_000, 60_000, 5_000)).milli()).isEqualTo(1_000);
    }

    @Test
    void aHalfWrittenHashCountsAsNoBucket() {
        assertThat(read(1_000, 5_000L, null, TEN_PER_SECOND).stored()).isFalse();
    }

    private static TokenLevel read(long nowMs, Long milli, Long ts, BucketShape bucket) {
        Map<String, String> fields = new HashMap<>();
        if (milli != null) {
            fields.put("tokens_milli", milli.toString());
        }
        if (ts != null) {
            fields.put("ts_ms", ts.toString());
        }
        return SpringDataCounterReads.level("rl:{k}:r", fields, bucket, nowMs);
    }
}
