package dev.tollgate.bench.soak;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class FaultTest {

    @Test
    void theHalfHourHasSixFaultsTakingTurnsAndTheLastRecoversBeforeTheEnd() {
        double[] at = Fault.schedule(SoakOptions.DEFAULTS);

        assertThat(at).containsExactly(270, 540, 810, 1080, 1350, 1620);
        assertThat(Fault.Kind.of(1)).isEqualTo(Fault.Kind.FREEZE_PRIMARY);
        assertThat(Fault.Kind.of(2)).isEqualTo(Fault.Kind.KILL_PRIMARY);
        assertThat(Fault.Kind.of(3)).isEqualTo(Fault.Kind.KILL_POD);
        assertThat(Fault.Kind.of(4)).isEqualTo(Fault.Kind.FREEZE_PRIMARY);
        // faults 1, 2, 4, 5 are the primary faults: every shard is met, the first twice
        assertThat(SoakScenario.shardOf(1)).isZero();
        assertThat(SoakScenario.shardOf(2)).isEqualTo(1);
        assertThat(SoakScenario.shardOf(4)).isEqualTo(2);
        assertThat(SoakScenario.shardOf(5)).isZero();
    }

    @Test
    void aThreeMinuteSoakStillMeetsEveryKindOfFault() {
        double[] at = Fault.schedule(new SoakOptions(3, 45, 600, 5, 20));

        assertThat(at).containsExactly(45, 90, 135);
    }
}
