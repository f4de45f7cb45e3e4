package dev.tollgate.store;

import dev.tollgate.store.backoff.Backoff;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** The store's connect backoff, whose half-second cap the connect tests' "about a second" rests on. */
class ConnectBackoffTest {

    private final Backoff backoff = RedisCounterStore.CONNECT_BACKOFF;

    @Test
    void doublesFromFiftyMillisecondsUpToHalfASecondWithJitterInTheUpperHalf() {
        SplittableRandom random = new SplittableRandom(42);
        long[] ceilings = {50, 100, 200, 400, 500, 500, 500};
        for (int failures = 1; failures <= ceilings.length; failures++) {
            long ceiling = ceilings[failures - 1];
            for (int draw = 0; draw < 1_000; draw++) {
                long delay = backoff.delay(failures, random).toMillis();
                assertThat(delay).as("after failure %d", failures).isBetween(ceiling / 2, ceiling);
            }
        }
    }

    @Test
    void neverWaitsLongerThanTheCapHoweverLongItHasFailed() {
        SplittableRandom random = new SplittableRandom(7);
        assertThat(backoff.delay(Integer.MAX_VALUE, random)).isLessThanOrEqualTo(Duration.ofMillis(500));
        assertThat(backoff.delay(10_000, random)).isGreaterThanOrEqualTo(Duration.ofMillis(250));
    }
}
