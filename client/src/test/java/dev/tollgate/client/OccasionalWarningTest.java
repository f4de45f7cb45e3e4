package dev.tollgate.client;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class OccasionalWarningTest {

    private final AtomicLong now = new AtomicLong(1_000);
    private final OccasionalWarning warning = new OccasionalWarning(Duration.ofSeconds(30), now::get);

    @Test
    void warnsAtOnceThenOncePerIntervalCountingWhatItStandsFor() {
        assertThat(warning.occurred()).as("the first").isEqualTo(1);
        for (int i = 0; i < 500; i++) {
            now.addAndGet(Duration.ofMillis(10).toNanos());
            assertThat(warning.occurred()).as("within the interval").isZero();
        }
        now.addAndGet(Duration.ofSeconds(25).toNanos());
        assertThat(warning.occurred()).as("the 500 silent ones and this").isEqualTo(501);
        assertThat(warning.occurred()).isZero();
    }

    @Test
    void aLongQuietSpellDoesNotBankWarnings() {
        assertThat(warning.occurred()).isEqualTo(1);
        now.addAndGet(Duration.ofHours(1).toNanos());
        assertThat(warning.occurred()).isEqualTo(1);
        assertThat(warning.occurred()).as("one interval from the last warning, not from the first").isZero();
    }
}
