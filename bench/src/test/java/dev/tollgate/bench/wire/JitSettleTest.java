package dev.tollgate.bench.wire;

import dev.tollgate.bench.wire.JitSettle.Sample;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JitSettleTest {

    /** Checks come at 1,000 a second in these tests: the least number is passed at 2 s, before any window ends. */
    private static final long CHECKS_PER_SECOND = 1_000;

    private final JitSettle rule = new JitSettle(5, 50, 2_000);

    @Test
    void settlesAtTheFirstReadingWhoseLastWindowCompiledLessThanTheThreshold() {
        // C2 busy for 8 s (about 360 ms of compilation a second), then a trickle of 5 ms a second
        List<Sample> samples = everySecond(0, 360, 720, 1080, 1440, 1800, 2160, 2520, 2880, 2885, 2890, 2895, 2900, 2905, 2910, 2915);

        // at 13 s the compilers added 2,905 − 2,880 = 25 ms since 8 s; at 12 s it was 2,900 − 2,520 = 380 ms since 7 s
        assertThat(rule.settledAt(samples)).contains(at(13, 2905));
    }

    @Test
    void aWindowWithExactlyTheThresholdIsNotQuiet() {
        assertThat(rule.settledAt(everySecond(0, 10, 20, 30, 40, 50))).isEmpty();
        assertThat(rule.settledAt(everySecond(0, 10, 20, 30, 40, 49))).contains(at(5, 49));
    }

    @Test
    void neverSettlesBeforeAWholeWindowOfLoadHasPassed() {
        // no compilation at all, but only 4 s of readings
        assertThat(rule.settledAt(everySecond(100, 100, 100, 100, 100))).isEmpty();
        assertThat(rule.settledAt(List.of())).isEmpty();
        assertThat(rule.settledAt(List.of(at(0, 100)))).isEmpty();
    }

    @Test
    void aBurstOfRecompilationInsideTheWindowPutsTheSettlingOff() {
        List<Sample> quiet = everySecond(0, 500, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000);
        // the same, with a deoptimised method compiled again (80 ms) just before 4 s
        List<Sample> burst = everySecond(0, 500, 1000, 1000, 1080, 1080, 1080, 1080, 1080, 1080, 1080);

        // 7 s against 2 s: nothing compiled
        assertThat(rule.settledAt(quiet)).contains(at(7, 1000));
        // 7 s against 2 s and 8 s against 3 s: 80 ms; 9 s against 4 s: nothing
        assertThat(rule.settledAt(burst)).contains(at(9, 1080));
    }

    @Test
    void theWindowReachesBackToTheLatestReadingAWholeWindowEarlierWhenReadingsAreUneven() {
        // readings late under load: 0, 2.5, 4.9, 6.2, 7.4 s
        List<Sample> samples = List.of(at(0, 0), at(2.5, 400), at(4.9, 700), at(6.2, 710),
                at(7.4, 720));

        // at 6.2 s and at 7.4 s the window reaches back to 0 s (2.5 s is less than a window before either): 710, 720 ms
        assertThat(rule.settledAt(samples)).isEmpty();
        List<Sample> later = new ArrayList<>(samples);
        later.add(at(10.0, 730));
        // at 10 s back to 4.9 s: 30 ms
        assertThat(rule.settledAt(later)).contains(at(10.0, 730));
    }

    @Test
    void aQuietWindowBeforeTheLeastNumberOfChecksDoesNotCount() {
        // a starved server: 100 checks a second, so 2,000 only at 20 s; the compilers quiet from 5 s on
        List<Sample> samples = new ArrayList<>();
        for (int second = 0; second <= 25; second++) {
            samples.add(new Sample(second, second < 5 ? second * 300L : 1_500, second * 100L));
        }

        assertThat(rule.settledAt(samples)).contains(new Sample(20, 1_500, 2_000));
    }

    @Test
    void aWindowOrThresholdOfNothingIsRefused() {
        assertThatThrownBy(() -> new JitSettle(0, 50, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new JitSettle(5, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new JitSettle(Double.NaN, 50, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new JitSettle(5, 50, -1)).isInstanceOf(IllegalArgumentException.class);
    }

    /** A reading at {@code seconds}, with checks answered at {@link #CHECKS_PER_SECOND}. */
    private static Sample at(double seconds, long compileMillis) {
        return new Sample(seconds, compileMillis, Math.round(seconds * CHECKS_PER_SECOND));
    }

    /** One reading a second from 0 s on, of the compilers' totals given. */
    private static List<Sample> everySecond(long... compileMillis) {
        List<Sample> samples = new ArrayList<>();
        for (int i = 0; i < compileMillis.length; i++) {
            samples.add(at(i, compileMillis[i]));
        }
        return samples;
    }
}
