package dev.tollgate.store.backoff;

import dev.tollgate.store.backoff.Backoff.Jitter;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BackoffTest {

    private static final Duration FIRST = Duration.ofMillis(200);
    private static final Duration MAX = Duration.ofSeconds(10);

    @Test
    void theCeilingDoublesFromTheFirstWaitUpToTheMax() {
        Backoff backoff = new Backoff(FIRST, MAX, Jitter.FULL);
        assertThat(IntStream.of(1, 2, 3, 4, 5, 6, 7, 8, 1_000, Integer.MAX_VALUE).mapToObj(backoff::ceiling).map(Duration::toMillis))
                .containsExactly(200L, 400L, 800L, 1_600L, 3_200L, 6_400L, 10_000L, 10_000L, 10_000L, 10_000L);
    }

    @Test
    void aMaxThatIsNoDoublingOfTheFirstWaitIsStillReachedAndNeverPassed() {
        Backoff backoff = new Backoff(Duration.ofMillis(300), Duration.ofMillis(1_000), Jitter.NONE);
        assertThat(IntStream.rangeClosed(1, 4).mapToObj(backoff::ceiling).map(Duration::toMillis)).containsExactly(300L, 600L, 1_000L, 1_000L);
        Backoff huge = new Backoff(Duration.ofMillis(1), Duration.ofMillis(Long.MAX_VALUE), Jitter.NONE);
        assertThat(huge.ceiling(Integer.MAX_VALUE)).isEqualTo(Duration.ofMillis(Long.MAX_VALUE));
    }

    @Test
    void fullJitterDrawsEachWaitBetweenZeroAndItsCeiling() {
        Backoff backoff = new Backoff(FIRST, MAX, Jitter.FULL);
        Random random = new Random(42);
        for (int failures = 1; failures <= 50; failures++) {
            for (int draw = 0; draw < 100; draw++) {
                assertThat(backoff.delay(failures, random)).as("after failure %d", failures).isBetween(Duration.ZERO, backoff.ceiling(failures));
            }
        }
    }

    @Test
    void equalJitterDrawsEachWaitFromTheUpperHalfOfItsCeiling() {
        Backoff backoff = new Backoff(Duration.ofMillis(50), Duration.ofMillis(500), Jitter.EQUAL);
        SplittableRandom random = new SplittableRandom(42);
        for (int failures = 1; failures <= 10; failures++) {
            long ceiling = backoff.ceiling(failures).toMillis();
            for (int draw = 0; draw < 1_000; draw++) {
                assertThat(backoff.delay(failures, random).toMillis()).as("after failure %d", failures).isBetween(ceiling / 2, ceiling);
            }
        }
    }

    @Test
    void noJitterWaitsTheCeilingAndDrawsNothing() {
        Backoff backoff = new Backoff(FIRST, Duration.ofSeconds(5), Jitter.NONE);
        assertThat(IntStream.rangeClosed(1, 7).mapToObj(failures -> backoff.delay(failures, null)).map(Duration::toMillis))
                .containsExactly(200L, 400L, 800L, 1_600L, 3_200L, 5_000L, 5_000L);
    }

    @Test
    void callersThatFailedTogetherWaitDifferentTimes() {
        for (Jitter jitter : List.of(Jitter.FULL, Jitter.EQUAL)) {
            Backoff backoff = new Backoff(Duration.ofMillis(50), Duration.ofMillis(500), jitter);
            SplittableRandom random = new SplittableRandom(1);
            long distinct = IntStream.range(0, 50).mapToLong(i -> backoff.delay(6, random).toMillis()).distinct().count();
            assertThat(distinct).as("%s jitter", jitter).isGreaterThan(25);
        }
        List<Long> one = waits(new Backoff(FIRST, MAX, Jitter.FULL).streak(new Random(1)), 8);
        List<Long> other = waits(new Backoff(FIRST, MAX, Jitter.FULL).streak(new Random(2)), 8);
        assertThat(one).isNotEqualTo(other);
        assertThat(one.stream().distinct().count()).as("not one fixed wait").isGreaterThan(1);
    }

    @Test
    void aStreakWaitsAsTheFailureCountSays() {
        Backoff backoff = new Backoff(FIRST, MAX, Jitter.FULL);
        Random random = new Random(3);
        Random twin = new Random(3);
        List<Long> expected = new ArrayList<>();
        for (int failures = 1; failures <= 10; failures++) {
            expected.add(backoff.delay(failures, twin).toMillis());
        }
        assertThat(waits(backoff.streak(random), 10)).isEqualTo(expected);
    }

    @Test
    void aSuccessStartsTheNextFailuresFromTheFirstCeilingAgain() {
        Random random = new Random(7);
        Backoff.Streak streak = new Backoff(FIRST, MAX, Jitter.FULL).streak(random);
        waits(streak, 10);
        streak.reset();
        // the same draw as a fresh streak's first: bounded by the first ceiling, not the max
        Random twin = new Random(7);
        waits(new Backoff(FIRST, MAX, Jitter.FULL).streak(twin), 10);
        assertThat(streak.next().toMillis()).isEqualTo(twin.nextLong(FIRST.toMillis() + 1)).isLessThanOrEqualTo(FIRST.toMillis());
    }

    @Test
    void refusesAMaxBelowTheFirstWaitOrAFirstWaitUnderAMillisecond() {
        assertThatThrownBy(() -> new Backoff(MAX, FIRST, Jitter.FULL)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Backoff(Duration.ZERO, MAX, Jitter.FULL)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Backoff(Duration.ofNanos(999_999), MAX, Jitter.FULL)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Backoff(FIRST, MAX, null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Backoff(FIRST, MAX, Jitter.FULL).streak(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void refusesAWaitBeforeAnyFailure() {
        assertThatThrownBy(() -> new Backoff(FIRST, MAX, Jitter.FULL).delay(0, new Random())).isInstanceOf(IllegalArgumentException.class);
    }

    private static List<Long> waits(Backoff.Streak streak, int count) {
        List<Long> waits = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            waits.add(streak.next().toMillis());
        }
        return waits;
    }
}
