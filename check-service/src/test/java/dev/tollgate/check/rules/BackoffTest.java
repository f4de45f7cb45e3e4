package dev.tollgate.check.rules;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BackoffTest {

    private static final Duration FIRST = Duration.ofMillis(200);
    private static final Duration MAX = Duration.ofSeconds(10);

    @Test
    void theCeilingDoublesFromTheFirstWaitUpToTheMax() {
        Backoff backoff = new Backoff(FIRST, MAX, new Random(1));
        assertThat(List.of(0, 1, 2, 3, 4, 5, 6, 7, 1_000, Integer.MAX_VALUE).stream().map(backoff::ceilingMillis))
                .containsExactly(200L, 400L, 800L, 1_600L, 3_200L, 6_400L, 10_000L, 10_000L, 10_000L, 10_000L);
    }

    @Test
    void eachWaitIsDrawnBetweenZeroAndItsCeiling() {
        Backoff backoff = new Backoff(FIRST, MAX, new Random(42));
        for (int failure = 0; failure < 50; failure++) {
            assertThat(backoff.next().toMillis()).as("wait %d", failure).isBetween(0L, backoff.ceilingMillis(failure));
        }
    }

    @Test
    void podsWithTheSameHistoryWaitDifferentTimes() {
        // full jitter: two pods that failed together spread out instead of retrying in step
        List<Long> one = waits(new Backoff(FIRST, MAX, new Random(1)), 8);
        List<Long> other = waits(new Backoff(FIRST, MAX, new Random(2)), 8);
        assertThat(one).isNotEqualTo(other);
        assertThat(one.stream().distinct().count()).as("not one fixed wait").isGreaterThan(1);
    }

    @Test
    void aSuccessStartsTheNextFailuresFromTheFirstCeilingAgain() {
        Random random = new Random(7);
        Backoff backoff = new Backoff(FIRST, MAX, random);
        waits(backoff, 10);
        backoff.reset();
        // the same draw as a fresh backoff's first: bounded by the first ceiling, not the max
        Random twin = new Random(7);
        waits(new Backoff(FIRST, MAX, twin), 10);
        assertThat(backoff.next().toMillis()).isEqualTo(twin.nextLong(FIRST.toMillis() + 1)).isLessThanOrEqualTo(FIRST.toMillis());
    }

    @Test
    void refusesAMaxBelowTheFirstWaitOrANonPositiveFirst() {
        assertThatThrownBy(() -> new Backoff(MAX, FIRST, new Random())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Backoff(Duration.ZERO, MAX, new Random())).isInstanceOf(IllegalArgumentException.class);
    }

    private static List<Long> waits(Backoff backoff, int count) {
        List<Long> waits = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            waits.add(backoff.next().toMillis());
        }
        return waits;
    }
}
