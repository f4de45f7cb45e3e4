package dev.tollgate.check.warmup;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class SettlingTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void settlesOnceTheJitWasQuietForTheWholeSpanAfterEnoughChecks() {
        Settling settling = new Settling(Duration.ofSeconds(3), Duration.ofMillis(100), 1_000);

        assertThat(settling.settled(0, 0, 0)).isFalse();
        assertThat(settling.settled(SECOND, 500, 2_000)).isFalse();
        // quiet since the reading at 1 s, but not for 3 s yet
        assertThat(settling.settled(2 * SECOND, 5_000, 2_050)).isFalse();
        assertThat(settling.settled(3 * SECOND, 9_000, 2_060)).isFalse();
        assertThat(settling.settled(4 * SECOND, 12_000, 2_090)).isTrue();
    }

    @Test
    void aBurstOfCompilationStartsTheQuietSpanAgain() {
        Settling settling = new Settling(Duration.ofSeconds(3), Duration.ofMillis(100), 0);

        settling.settled(0, 0, 0);
        settling.settled(SECOND, 10, 10);
        settling.settled(2 * SECOND, 20, 20);
        assertThat(settling.settled(3 * SECOND, 30, 400)).isFalse();
        assertThat(settling.settled(4 * SECOND, 40, 410)).isFalse();
        assertThat(settling.settled(5 * SECOND, 50, 420)).isFalse();
        assertThat(settling.settled(6 * SECOND, 60, 430)).isTrue();
    }

    @Test
    void neverSettlesBeforeItsChecks() {
        Settling settling = new Settling(Duration.ofSeconds(1), Duration.ofMillis(100), 1_000_000);

        for (int s = 0; s < 10; s++) {
            assertThat(settling.settled(s * SECOND, s * 1_000L, 0)).isFalse();
        }
    }
}
