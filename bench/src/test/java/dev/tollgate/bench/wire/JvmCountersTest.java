package dev.tollgate.bench.wire;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class JvmCountersTest {

    @Test
    void aStepsShareIsTheDifferenceOfTwoReadingsOverTheChecksAnsweredInBetween() {
        JvmCounters.Reading before = new JvmCounters.Reading(5_000_000_000L, 1_000_000_000L);
        JvmCounters.Reading after = new JvmCounters.Reading(5_400_000_000L, 1_080_000_000L);

        JvmCounters.Reading used = after.minus(before);

        assertThat(used).isEqualTo(new JvmCounters.Reading(400_000_000L, 80_000_000L));
        assertThat(used.cpuMicrosPer(10_000)).isEqualTo(40.0);
        assertThat(used.bytesPer(10_000)).isEqualTo(8_000.0);
    }

    @Test
    void noCheckAnsweredGivesNoFigureRatherThanInfinity() {
        JvmCounters.Reading used = new JvmCounters.Reading(1_000, 1_000);

        assertThat(used.cpuMicrosPer(0)).isNaN();
        assertThat(used.bytesPer(0)).isNaN();
    }
}
