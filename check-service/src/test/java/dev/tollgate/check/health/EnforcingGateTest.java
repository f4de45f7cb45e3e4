package dev.tollgate.check.health;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

class EnforcingGateTest {

    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    private static final EnforcingGate.Warmth WARM = EnforcingGate.Warmth.NONE;

    @Test
    void isReadyOnlyWithRulesAndTheStoreReached() {
        EnforcingGate gate = new EnforcingGate(START, Duration.ofSeconds(30));

        assertThat(gate.check(false, true, WARM, START.plusSeconds(1)).ready()).isFalse();
        assertThat(gate.check(true, false, WARM, START.plusSeconds(1)).ready()).isFalse();
        EnforcingGate.Verdict ready = gate.check(true, true, WARM, START.plusSeconds(2));
        assertThat(ready.ready()).isTrue();
        assertThat(ready.becameReady()).isTrue();
        assertThat(ready.mode()).isEqualTo("enforcing");
        assertThat(gate.check(true, true, WARM, START.plusSeconds(3)).becameReady()).isFalse();
    }

    @Test
    void waitsForTheWarmUpWhateverElseIsThereAndThenStaysReady() {
        EnforcingGate gate = new EnforcingGate(START, Duration.ofSeconds(30));
        EnforcingGate.Warmth warming = new EnforcingGate.Warmth(false, "warming up: 9000 checks in 2.0 s");

        EnforcingGate.Verdict cold = gate.check(true, true, warming, START.plusSeconds(2));
        assertThat(cold.ready()).isFalse();
        assertThat(cold.waitingFor()).containsExactly("the warm-up (warming up: 9000 checks in 2.0 s)");
        // a pod in fallback after its grace is warmed as well before it is ready: slow in fallback is still slow
        assertThat(gate.check(true, false, warming, START.plusSeconds(31)).ready()).isFalse();
        assertThat(gate.check(true, true, new EnforcingGate.Warmth(true, "warmed up"), START.plusSeconds(40)).becameReady()).isTrue();
        assertThat(gate.check(true, true, warming, START.plusSeconds(41)).ready()).isTrue();
    }

    @Test
    void saysWhatItWaitsFor() {
        EnforcingGate gate = new EnforcingGate(START, Duration.ofSeconds(30));

        assertThat(gate.check(false, false, WARM, START).waitingFor()).containsExactly(
                "a rules snapshot from rules-service (none saved or fetched yet)",
                "the counter store, or the end of the fallback grace at 2026-01-01T00:00:30Z");
    }

    @Test
    void turnsReadyInFallbackWhenTheGraceIsOverButNeverWithoutRules() {
        EnforcingGate gate = new EnforcingGate(START, Duration.ofSeconds(30));

        assertThat(gate.check(true, false, WARM, START.plusSeconds(29)).ready()).isFalse();
        assertThat(gate.check(false, false, WARM, START.plusSeconds(31)).ready()).isFalse();
        EnforcingGate.Verdict fallback = gate.check(true, false, WARM, START.plusSeconds(30));
        assertThat(fallback.ready()).isTrue();
        assertThat(fallback.mode()).startsWith("fallback");
    }

    @Test
    void aZeroGraceDoesNotWaitForTheStoreAndANegativeOneWaitsForever() {
        assertThat(new EnforcingGate(START, Duration.ZERO).check(true, false, WARM, START).ready()).isTrue();
        EnforcingGate forever = new EnforcingGate(START, Duration.ofMillis(-1));
        assertThat(forever.check(true, false, WARM, START.plus(Duration.ofDays(1))).ready()).isFalse();
        assertThat(forever.check(true, true, WARM, START.plus(Duration.ofDays(1))).ready()).isTrue();
    }

    @Test
    void staysReadyWhenTheStoreIsLostLater() {
        EnforcingGate gate = new EnforcingGate(START, Duration.ofMillis(-1));
        gate.check(true, true, WARM, START);

        // a store outage after readiness would pull every pod of the region at once
        EnforcingGate.Verdict later = gate.check(true, false, WARM, START.plusSeconds(60));
        assertThat(later.ready()).isTrue();
        assertThat(later.waitingFor()).isEmpty();
    }
}
