package dev.tollgate.bench.scale;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class ScaleScenarioTest {

    @Test
    void nearestRankPercentiles() {
        double[] sorted = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
        assertThat(ScaleScenario.percentile(sorted, 0.5)).isEqualTo(5);
        assertThat(ScaleScenario.percentile(sorted, 0.99)).isEqualTo(10);
        assertThat(ScaleScenario.percentile(new double[0], 0.5)).isNaN();
    }

    @Test
    void aPodThatNeverSawAProbeCountsAsInfinitelyLate() {
        WatchingPods.Pod early = new WatchingPods.Pod(0, "us-east");
        WatchingPods.Pod never = new WatchingPods.Pod(1, "eu-west");
        early.received(10, 1_500_000_000L);
        double[] delays = ScaleScenario.probeDelays(List.of(new ScaleScenario.Probe(3, 10, 1_000_000_000L)), List.of(early, never));
        assertThat(delays[0]).isCloseTo(500, within(0.001));
        assertThat(delays[1]).isInfinite();
    }

    @Test
    void aPeriodTakesTheRebalancerLineOfTheWindowItsCycleReadAndTheFeedsDifferences() {
        WatchingPods.Pod pod = new WatchingPods.Pod(0, "us-east");
        pod.received(21, 12_400_000_000L);
        List<ScaleScenario.Sample> samples = List.of(
                new ScaleScenario.Sample(4, 1000, 10_000_000_000L, 1_000, 3, 20, 5.0, 1e8, 2e8, 0, 100),
                new ScaleScenario.Sample(5, 1010, 20_000_000_000L, 5_000, 5, 22, 7.5, 1e8, 3e8, 0, 400));
        List<String> lines = List.of(
                "... cycle COMPLETE: window 990, 100 keys with usage, 1 written, 0 reset, 0 deferred, 0 regions unreachable, 9 ms",
                "... cycle PARTIAL: window 1000, 200 keys with usage, 10 written, 0 reset, 2 deferred, 1 regions unreachable, 1234 ms");

        List<ScaleScenario.Period> periods = ScaleScenario.periods(samples,
                List.of(new ScaleScenario.Probe(4, 21, 12_000_000_000L)), lines, List.of(pod));

        assertThat(periods).singleElement().satisfies(p -> {
            assertThat(p.cycle()).isEqualTo(4);
            assertThat(p.outcome()).isEqualTo("partial");
            assertThat(p.keysWithUsage()).isEqualTo(200);
            assertThat(p.written()).isEqualTo(10);
            assertThat(p.deferred()).isEqualTo(2);
            assertThat(p.cycleMillis()).isEqualTo(1234);
            assertThat(p.revisions()).isEqualTo(2);
            assertThat(p.answersPerPod()).isEqualTo(2);
            assertThat(p.bytesPerPod()).isEqualTo(4_000);
            assertThat(p.rulesCores()).isCloseTo(0.25, within(1e-9));
            assertThat(p.pgActiveMillis()).isEqualTo(300);
            assertThat(p.probeAllMillis()).isCloseTo(400, within(1e-6));
        });
    }
}
