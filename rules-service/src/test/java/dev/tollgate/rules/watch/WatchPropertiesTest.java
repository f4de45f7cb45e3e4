package dev.tollgate.rules.watch;

import org.junit.jupiter.api.Test;
import org.springframework.util.unit.DataSize;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WatchPropertiesTest {

    @Test
    void defaultsKeepDeletionsAnHourAndCapAnswersAtThePodsOwnLimit() {
        WatchProperties properties = new WatchProperties(null, null, null, null);

        assertThat(properties.keep()).isEqualTo(Duration.ofHours(1));
        assertThat(properties.maxAnswerSize()).isEqualTo(DataSize.ofMegabytes(128));
        assertThat(properties.pruneEvery()).isEqualTo(Duration.ofMinutes(5));
        assertThat(new WatchProperties(null, null, Duration.ofMinutes(10), null).pruneEvery()).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void refusesAKeepShorterThanAMinuteAndACapOutsideWhatAnAnswerCanHold() {
        assertThatThrownBy(() -> new WatchProperties(null, null, Duration.ofSeconds(30), null))
                .hasMessageContaining("tollgate.watch.keep must be at least 1m");
        assertThatThrownBy(() -> new WatchProperties(null, null, null, DataSize.ofBytes(100)))
                .hasMessageContaining("tollgate.watch.max-answer-size must be between 1KB and 2047MB");
        assertThatThrownBy(() -> new WatchProperties(null, null, null, DataSize.ofGigabytes(4)))
                .hasMessageContaining("tollgate.watch.max-answer-size");
    }
}
