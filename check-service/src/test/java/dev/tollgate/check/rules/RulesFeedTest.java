package dev.tollgate.check.rules;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** How large a snapshot a pod reads: the configured largest, or its share of the heap when that is smaller. */
class RulesFeedTest {

    private static final long MIB = 1 << 20;

    @Test
    void thePodOfTheChartReadsATwelfthOfItsHeapRatherThanTheConfigured128MiB() {
        // 1 GiB at MaxRAMPercentage 70: a snapshot of 128 MiB, held about six times while it is swapped in, would not fit
        long heap = 717 * MIB;
        assertThat(RulesFeed.largestSnapshot(heap, RulesFeed.DEFAULT_MAX_BYTES)).isEqualTo(heap / 12).isLessThan(60 * MIB);
    }

    @Test
    void aHeapWhoseShareIsLargerReadsTheConfiguredLargest() {
        assertThat(RulesFeed.largestSnapshot(4096 * MIB, RulesFeed.DEFAULT_MAX_BYTES)).isEqualTo(RulesFeed.DEFAULT_MAX_BYTES);
        assertThat(RulesFeed.largestSnapshot(12 * 16 * 1024, 16 * 1024)).isEqualTo(16 * 1024);
    }

    @Test
    void aHeapWithoutALimitReadsTheConfiguredLargest() {
        assertThat(RulesFeed.largestSnapshot(Long.MAX_VALUE, RulesFeed.DEFAULT_MAX_BYTES)).isEqualTo(RulesFeed.DEFAULT_MAX_BYTES);
    }

    @Test
    void theSmallestHeapStillReadsSomething() {
        assertThat(RulesFeed.largestSnapshot(5, RulesFeed.DEFAULT_MAX_BYTES)).isEqualTo(1);
    }
}
