package dev.tollgate.bench.scenario;

import dev.tollgate.bench.load.Answer;
import dev.tollgate.bench.load.Timeline;
import dev.tollgate.bench.load.Timeline.Series;
import dev.tollgate.bench.wire.JitSettle;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class WireWarmUpTest {

    private static final JitSettle RULE = new JitSettle(5, 50, 0);

    @Test
    void summarisesTheChecksTheCompilationAndTheRampOfAWarmUp() {
        Timeline timeline = new Timeline(0, 30, null);
        checks(timeline, 0, 5, 10, Answer.ALLOWED);
        checks(timeline, 0, 1, 3, Answer.FAILED);
        checks(timeline, 5, 10, 100, Answer.DENIED);
        checks(timeline, 10, 12, 200, Answer.ALLOWED);
        // 1,000 ms compiled while it started, then C2 at work until about 8 s
        List<JitSettle.Sample> samples = everySecond(1000, 1400, 1800, 2200, 2600, 2900, 3100, 3200, 3250, 3260, 3265, 3270, 3275);

        WireScenario.WarmUp warmUp = WireScenario.WarmUp.of(RULE, samples, true, timeline);

        assertThat(warmUp.settled()).isTrue();
        assertThat(warmUp.seconds()).isEqualTo(12);
        assertThat(warmUp.checksSent()).isEqualTo(50 + 3 + 500 + 400);
        assertThat(warmUp.failed()).isEqualTo(3);
        assertThat(warmUp.compileMillis()).isEqualTo(3275 - 1000);
        // from 7 s, the latest reading a whole window before 12 s
        assertThat(warmUp.lastWindowCompileMillis()).isEqualTo(3275 - 3200);
        assertThat(warmUp.firstRate()).isEqualTo(10);
        // 7 to 12 s: 3 s at 100/s and 2 s at 200/s
        assertThat(warmUp.lastRate()).isEqualTo(140);
        assertThat(warmUp.ratePerWindow()).containsExactly(10, 100);
    }

    @Test
    void aWarmUpCutShorterThanAWindowByItsCapIsOneWindowOfItsLength() {
        Timeline timeline = new Timeline(0, 12, null);
        checks(timeline, 0, 2, 50, Answer.ALLOWED);

        WireScenario.WarmUp warmUp = WireScenario.WarmUp.of(RULE, everySecond(500, 900, 1300), false, timeline);

        assertThat(warmUp.settled()).isFalse();
        assertThat(warmUp.checksSent()).isEqualTo(100);
        assertThat(warmUp.lastWindowCompileMillis()).isEqualTo(800);
        assertThat(warmUp.firstRate()).isEqualTo(50);
        assertThat(warmUp.lastRate()).isEqualTo(50);
        assertThat(warmUp.ratePerWindow()).isEmpty();
        assertThat(timeline.sum(Series.SENT, 0, 12)).isEqualTo(100);
    }

    /** {@code perSecond} checks sent in each second of [from, to), spread over it, each answered {@code answer}. */
    private static void checks(Timeline timeline, int from, int to, int perSecond, Answer answer) {
        for (int second = from; second < to; second++) {
            for (int i = 0; i < perSecond; i++) {
                long at = second * 1_000_000_000L + i * (1_000_000_000L / perSecond);
                timeline.add(Series.SENT, at);
                timeline.answered(at, answer);
            }
        }
    }

    private static List<JitSettle.Sample> everySecond(long... compileMillis) {
        List<JitSettle.Sample> samples = new ArrayList<>();
        for (int i = 0; i < compileMillis.length; i++) {
            samples.add(new JitSettle.Sample(i, compileMillis[i], 0));
        }
        return samples;
    }
}
