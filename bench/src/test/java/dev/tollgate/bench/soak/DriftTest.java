package dev.tollgate.bench.soak;

import dev.tollgate.bench.soak.Drift.Judgement;
import dev.tollgate.bench.soak.Drift.Tolerance;
import dev.tollgate.bench.soak.Drift.Verdict;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class DriftTest {

    private static final double MIB = 1 << 20;
    private static final Tolerance HEAP = new Tolerance(8 * MIB, 0.10);

    @Test
    void aNoisyButLevelSeriesIsFlat() {
        Random random = new Random(7);
        double[] t = times(120, 15);
        double[] heap = new double[t.length];
        for (int i = 0; i < heap.length; i++) {
            heap[i] = 60 * MIB + random.nextGaussian() * 2 * MIB;
        }

        Judgement judgement = Drift.judge(t, heap, 180, HEAP);

        assertThat(judgement.verdict()).isEqualTo(Verdict.FLAT);
        // 15 s to 1,800 s: 109 of them at or after 180 s
        assertThat(judgement.samples()).isEqualTo(109);
        assertThat(judgement.change()).isLessThan(judgement.tolerance());
    }

    @Test
    void aSteadyLeakIsGrowingThoughEverySampleIsNoisy() {
        Random random = new Random(11);
        double[] t = times(120, 15);
        double[] heap = new double[t.length];
        for (int i = 0; i < heap.length; i++) {
            // 1 MiB a minute: 30 MiB over the half hour, buried in ±4 MiB of noise sample to sample
            heap[i] = 60 * MIB + t[i] / 60 * MIB + random.nextGaussian() * 4 * MIB;
        }

        Judgement judgement = Drift.judge(t, heap, 180, HEAP);

        assertThat(judgement.verdict()).isEqualTo(Verdict.GROWING);
        assertThat(judgement.perHour()).isCloseTo(60 * MIB, within(10 * MIB));
    }

    @Test
    void theWarmUpIsLeftOutSoAFillingCacheIsNotALeak() {
        double[] t = times(120, 15);
        double[] heap = new double[t.length];
        for (int i = 0; i < heap.length; i++) {
            // caches fill over the first 10 minutes, then hold
            heap[i] = t[i] < 600 ? 20 * MIB + t[i] / 600 * 40 * MIB : 60 * MIB;
        }

        assertThat(Drift.judge(t, heap, 600, HEAP).verdict()).isEqualTo(Verdict.FLAT);
        assertThat(Drift.judge(t, heap, 0, HEAP).verdict()).isEqualTo(Verdict.GROWING);
    }

    @Test
    void aSpikeInsideAThirdMovesNeitherMedian() {
        double[] t = times(90, 20);
        double[] connections = new double[t.length];
        for (int i = 0; i < connections.length; i++) {
            // a failover's reconnects: three samples at twice the level, in the last third
            connections[i] = i >= 70 && i < 73 ? 40 : 20;
        }

        Judgement judgement = Drift.judge(t, connections, 0, new Tolerance(4, 0.10));

        assertThat(judgement.verdict()).isEqualTo(Verdict.FLAT);
        assertThat(judgement.change()).isZero();
        assertThat(judgement.max()).isEqualTo(40);
    }

    @Test
    void aStepThatStaysIsGrowing() {
        double[] t = times(60, 15);
        double[] redis = new double[t.length];
        for (int i = 0; i < redis.length; i++) {
            // a connection kept after each of three failovers
            redis[i] = 8 + Math.min(3, i / 15);
        }

        Judgement judgement = Drift.judge(t, redis, 0, new Tolerance(2, 0));

        assertThat(judgement.verdict()).isEqualTo(Verdict.GROWING);
        assertThat(judgement.firstMedian()).isEqualTo(8);
        assertThat(judgement.lastMedian()).isEqualTo(11);
    }

    @Test
    void theToleranceIsTheLargerOfItsAbsoluteAndItsShare() {
        assertThat(HEAP.of(40 * MIB)).isEqualTo(8 * MIB);
        assertThat(HEAP.of(200 * MIB)).isEqualTo(20 * MIB);
    }

    @Test
    void tooFewSamplesAreNotJudgedAndFailedReadingsAreLeftOut() {
        double[] t = {0, 15, 30, 45, 60, 75, 90};
        double[] sparse = {1, Double.NaN, 2, Double.NaN, 3, Double.NaN, 4};

        Judgement judgement = Drift.judge(t, sparse, 0, new Tolerance(0, 0));

        assertThat(judgement.verdict()).isEqualTo(Verdict.NOT_JUDGED);
        assertThat(judgement.samples()).isEqualTo(4);
    }

    @Test
    void aSeriesWithoutToleranceIsShownNotJudged() {
        double[] t = times(30, 10);
        double[] rate = new double[t.length];
        for (int i = 0; i < rate.length; i++) {
            rate[i] = i < 20 ? 300 : 600;
        }

        Judgement judgement = Drift.judge(t, rate, 0, null);

        assertThat(judgement.verdict()).isEqualTo(Verdict.SHOWN);
        assertThat(judgement.lastMedian()).isEqualTo(600);
    }

    private static double[] times(int n, double every) {
        double[] t = new double[n];
        for (int i = 0; i < n; i++) {
            t[i] = (i + 1) * every;
        }
        return t;
    }
}
