package dev.tollgate.check.health;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

class EnforcingGateTest {

    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    @Test
    void isReadyOnlyWithRulesAndTheStoreReached() {
        EnforcingGate gate = new EnforcingGate(START, Duration.ofSeconds(30));

        assertThat(gate.check(false, true, START.plusSeconds(1)).ready()).isFalse();
        assertThat(gate.check(true, false, START.plusSeconds(1)).ready()).isFalse();
        EnforcingGate.Verdict ready = gate.check(true, true, START.plusSeconds(2));
        assertThat(ready.ready()).isTrue();
        assertThat(ready.becameReady()).isTrue();
        assertThat(ready.mode()).isEqualTo("enforcing");
        assertThat(gate.check(true, true, START.plusSeconds(3)).becameReady()).isFalse();
    }

    @Test
    void saysWhatItWaitsFor() {
        EnforcingGate gate = new EnforcingGate(START, Duration.ofSeconds(30));

        assertThat(gate.check(false, false, START).waitingFor()).containsExactly(
                "a rules snapshot from rules-service (none saved or fetched yet)",
                "the counter store, or the end of the fallback grace at 2026-01-01T00:00:30Z");
    }

    @Test
    void turnsReadyInFallbackWhenTheGraceIsOverButNeverWithoutRules() {
        EnforcingGate gate = new EnforcingGate(START, Duration.ofSeconds(30));

        assertThat(gate.check(true, false, START.plusSeconds(29)).ready()).isFalse();
        assertThat(gate.check(false, false, START.plusSeconds(31)).ready()).isFalse();
        EnforcingGate.Verdict fallback = gate.check(true, false, START.plusSeconds(30));
        assertThat(fallback.ready()).isTrue();
        assertThat(fallback.mode()).startsWith("fallback");
    }

    @Test
    void aZeroGraceDoesNotWaitForTheStoreAndANegativeOneWaitsForever() {
        assertThat(new EnforcingGate(START, Duration.ZERO).check(true, false, START).ready()).isTrue();
        EnforcingGate forever = new EnforcingGate(START, Duration.ofMillis(-1));
        assertThat(forever.check(true, false, START.plus(Duration.ofDays(1))).ready()).isFalse();
        assertThat(forever.check(true, true, START.plus(Duration.ofDays(1))).ready()).isTrue();
    }

    @Test
    void staysReadyWhenTheStoreIsLostLater() {
        EnforcingGate gate = new EnforcingGate(START, Duration.ofMillis(-1));
        gate.check(true, true, START);

        // a store outage after readiness would pull every pod of the region at once
        EnforcingGate.Verdict later = gate.check(true, false, START.plusSeconds(60));
        assertThat(later.ready()).isTrue();
        assertThat(later.waitingFor()).isEmpty();
    }
}
