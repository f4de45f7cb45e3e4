package dev.tollgate.rebalancer.schedule;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class CycleSchedulerTest {

    private static final long SLACK = CycleScheduler.SLACK_MS;

    @Test
    void runsUsageLagPastEachPeriodBoundary() {
        // 10 s period, 2 s lag: at 12:00:05 the next cycle is at 12:00:12 (plus slack)
        long boundary = 1_727_712_000_000L;

        assertThat(CycleScheduler.nextRun(boundary + 5_000, 10_000, 2_000)).isEqualTo(boundary + 12_000 + SLACK);
        assertThat(CycleScheduler.nextRun(boundary + 12_000 + SLACK, 10_000, 2_000)).isEqualTo(boundary + 22_000 + SLACK);
        assertThat(CycleScheduler.nextRun(boundary + 1_000, 10_000, 2_000)).isEqualTo(boundary + 2_000 + SLACK);
    }

    @Test
    void everyInstanceTicksAtTheSameInstants() {
        long a = CycleScheduler.nextRun(1_727_712_003_123L, 2_000, 1_500);
        long b = CycleScheduler.nextRun(1_727_712_002_999L, 2_000, 1_500);

        assertThat(a).isEqualTo(b);
        assertThat((a - 1_500 - SLACK) % 2_000).isZero();
    }
}
