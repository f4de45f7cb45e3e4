package dev.tollgate.bench.wire;

import dev.tollgate.bench.load.Answer;
import dev.tollgate.bench.load.Timeline;
import dev.tollgate.bench.load.Timeline.Series;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class ColdRampTest {

    private static final JitSettle RULE = new JitSettle(5, 50, 0);

    @Test
    void comparesTheFirstSecondsAfterReadyWithTheLastWindow() {
        Timeline timeline = new Timeline(0, 40, null);
        // a cold pod: 100/s for 5 s, 500/s for 5 s, then settled at 1,000/s; fallback and failed answers never count
        checks(timeline, 0, 5, 100, Answer.ALLOWED);
        checks(timeline, 5, 10, 500, Answer.DENIED);
        checks(timeline, 10, 20, 1000, Answer.ALLOWED);
        checks(timeline, 0, 2, 10, Answer.FALLBACK_ALLOWED);
        checks(timeline, 3, 4, 7, Answer.FAILED);

        ColdRamp.Ramp ramp = ColdRamp.Ramp.of(2.5, 2.6, RULE, everySecond(20), true, timeline, 10);

        assertThat(ramp.firstAnswerSeconds()).isEqualTo(2.5);
        assertThat(ramp.readySeconds()).isEqualTo(2.6);
        assertThat(ramp.seconds()).isEqualTo(20);
        assertThat(ramp.perSecond()).hasSize(20).startsWith(100, 100, 100, 100, 100, 500).endsWith(1000);
        assertThat(ramp.firstSeconds()).isEqualTo(10);
        assertThat(ramp.firstRate()).isEqualTo(300);
        assertThat(ramp.settledRate()).isEqualTo(1000);
        assertThat(ramp.ratio()).isCloseTo(0.3, within(1e-9));
        assertThat(ramp.failed()).isEqualTo(20 + 7);
    }

    @Test
    void aRampShorterThanTheFirstStretchIsComparedWhole() {
        Timeline timeline = new Timeline(0, 10, null);
        checks(timeline, 0, 3, 200, Answer.ALLOWED);

        ColdRamp.Ramp ramp = ColdRamp.Ramp.of(1, 1, RULE, everySecond(3), false, timeline, 10);

        assertThat(ramp.settled()).isFalse();
        assertThat(ramp.firstSeconds()).isEqualTo(3);
        assertThat(ramp.firstRate()).isEqualTo(200);
        assertThat(ramp.settledRate()).isEqualTo(200);
        assertThat(ramp.perSecond()).containsExactly(200, 200, 200);
    }

    @Test
    void theChartsLineIsEachSecondsMedianOverTheRoundsThatLastedThatLong() {
        ColdRamp.Variant variant = new ColdRamp.Variant(ColdStarts.Launch.FAT_JAR, true);
        ColdRamp.Result result = new ColdRamp.Result(Map.of(variant, List.of(ramp(10, 20, 30), ramp(20, 40), ramp(30, 10, 50, 70))), Map.of());

        assertThat(result.medianPerSecond(variant)).containsExactly(20, 20, 40, 70);
        assertThat(result.median(variant, ColdRamp.Ramp::seconds)).isEqualTo(3);
    }

    @Test
    void theWarmUpIsSaidEitherWaySinceItsDefaultMayChange() {
        ColdStarts.Settings pod = new ColdStarts.Settings(java.nio.file.Path.of("pod.jar"), List.of(), "127.0.0.1:7000",
                java.nio.file.Path.of("snapshot.json"), new byte[0], null);
        ColdRamp.Settings settings = new ColdRamp.Settings(pod, List.of(), 1, 5, 10, 16, List.of("--tollgate.redis.command-timeout=50ms"),
                java.time.Duration.ofSeconds(2), RULE, () -> null);

        assertThat(ColdRamp.arguments(settings, new ColdRamp.Variant(ColdStarts.Launch.FAT_JAR, false), 1, 2, 3))
                .contains("--management.server.port=2", "--tollgate.redis.command-timeout=50ms", "--tollgate.warm-up.enabled=false")
                .noneMatch(argument -> argument.startsWith("--tollgate.warm-up.max-duration"));
        assertThat(ColdRamp.arguments(settings, new ColdRamp.Variant(ColdStarts.Launch.EXTRACTED_AOT, true), 1, 2, 3))
                .contains("--tollgate.warm-up.enabled=true", "--tollgate.warm-up.max-duration=2000ms");
    }

    private static ColdRamp.Ramp ramp(double... perSecond) {
        return new ColdRamp.Ramp(1, 1, true, perSecond.length, perSecond, 1, 1, 1, 0);
    }

    private static void checks(Timeline timeline, int from, int to, int perSecond, Answer answer) {
        for (int second = from; second < to; second++) {
            for (int i = 0; i < perSecond; i++) {
                long at = second * 1_000_000_000L + i * (1_000_000_000L / perSecond);
                timeline.add(Series.SENT, at);
                timeline.answered(at, answer);
            }
        }
    }

    /** A reading every second up to {@code seconds}, the compilers quiet. */
    private static List<JitSettle.Sample> everySecond(int seconds) {
        List<JitSettle.Sample> samples = new ArrayList<>();
        for (int i = 0; i <= seconds; i++) {
            samples.add(new JitSettle.Sample(i, 1000, 0));
        }
        return samples;
    }
}
