package dev.tollgate.rules.usage;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The refill arithmetic of spend.lua, replayed without writing: 10 tokens/s is 10 milli-tokens per ms. */
class TokenLevelTest {

    private static final long REFILL = 10_000;
    private static final long PERIOD = 1_000;
    private static final long BURST = 20_000;

    @Test
    void aMissingBucketIsFull() {
        TokenLevel level = TokenLevel.at(5_000, null, null, REFILL, PERIOD, BURST);

        assertThat(level.tokens()).isEqualTo(20);
        assertThat(level.stored()).isFalse();
    }

    @Test
    void refillsSinceTheStoredTimeInWholeMilliTokens() {
        TokenLevel level = TokenLevel.at(1_250, 5_000L, 1_000L, REFILL, PERIOD, BURST);

        assertThat(level.milli()).isEqualTo(7_500);
        assertThat(level.tokens()).isEqualTo(7);
        assertThat(level.stored()).isTrue();
    }

    @Test
    void neverRefillsAboveTheBurst() {
        assertThat(TokenLevel.at(100_000, 5_000L, 1_000L, REFILL, PERIOD, BURST).milli()).isEqualTo(BURST);
        assertThat(TokenLevel.at(Long.MAX_VALUE / 2, 0L, 0L, REFILL, PERIOD, BURST).milli()).isEqualTo(BURST);
    }

    @Test
    void aTimestampAheadOfTheStoreClockRefillsNothing() {
        assertThat(TokenLevel.at(1_000, 5_000L, 2_000L, REFILL, PERIOD, BURST).milli()).isEqualTo(5_000);
    }

    @Test
    void aStoredLevelAboveAShrunkenBurstIsCappedAtTheBurst() {
        assertThat(TokenLevel.at(1_000, 50_000L, 1_000L, REFILL, PERIOD, BURST).milli()).isEqualTo(BURST);
    }

    @Test
    void aPerMinuteRateRefillsFractionsOfATokenPerMillisecond() {
        // 5 per minute: 5,000 milli-tokens per 60,000 ms
        TokenLevel level = TokenLevel.at(13_000, 0L, 1_000L, 5_000, 60_000, 5_000);

        assertThat(level.milli()).isEqualTo(1_000);
    }
}
