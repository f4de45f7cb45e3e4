package dev.tollgate.common.rule;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class CountAfterBoundTest {

    private static final Duration FLUSH = Duration.ofMillis(100);

    @Test
    void aPodsAllowanceIsTheRateOverOneFlushAndTheBoundTwiceThat() {
        assertThat(CountAfterBound.of(Rule.tokenBucket("ip", "edge", 50, 100), FLUSH)).isEqualTo(new CountAfterBound(100, 5, 10));
        // 5 per minute: less than one request per flush, so one
        assertThat(CountAfterBound.of(Rule.of("slow", "edge", new Limit.TokenBucket(5, 60, 5)), FLUSH)).isEqualTo(new CountAfterBound(100, 1, 2));
        // 86,400 a day is one a second: one request per 100 ms flush, rounded up
        assertThat(CountAfterBound.of(Rule.fixedWindow("daily", "edge", 86_400, 86_400), FLUSH)).isEqualTo(new CountAfterBound(100, 1, 2));
    }

    @Test
    void aPodMayAlwaysAdmitOneRequestOfTheLargestCost() {
        assertThat(CountAfterBound.of(Rule.tokenBucket("bulk", "edge", 10, 100).withMaxCost(20), FLUSH).allowancePerFlush()).isEqualTo(20);
    }
}
