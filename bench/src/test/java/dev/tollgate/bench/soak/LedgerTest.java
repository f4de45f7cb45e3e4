package dev.tollgate.bench.soak;

import dev.tollgate.bench.soak.SoakTraffic.Kind;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LedgerTest {

    @Test
    void sumsAWindowByWhenChecksWereDueAndTellsTheFaultsShardFromTheOthers() {
        Ledger ledger = new Ledger(60);
        ledger.record(9.9, Kind.API, 0, Outcome.ENFORCED, false, false);
        ledger.record(10.0, Kind.API, 1, Outcome.FALLBACK, false, false);
        ledger.record(12.5, Kind.API, 2, Outcome.FALLBACK, true, false);
        ledger.record(13.0, Kind.LOGIN, 1, Outcome.FAILED_CLOSED, true, true);
        ledger.record(14.0, Kind.MALFORMED, -1, Outcome.REFUSED, false, false);
        ledger.record(19.9, Kind.API, 1, Outcome.BROKEN, false, false);
        ledger.rerouted(15);
        ledger.record(20.0, Kind.API, 1, Outcome.ENFORCED, false, false);

        Ledger.Window fault = ledger.sum(10, 20, 1);

        assertThat(fault.sent()).isEqualTo(5);
        assertThat(fault.late()).isEqualTo(2);
        assertThat(fault.lateFromSend()).isEqualTo(1);
        assertThat(fault.unanswered()).isEqualTo(1);
        assertThat(fault.answeredInTime()).isEqualTo(2);
        assertThat(fault.fallbackOnShard()).isEqualTo(1);
        assertThat(fault.fallbackElsewhere()).isEqualTo(1);
        assertThat(fault.count(Outcome.FAILED_CLOSED)).isEqualTo(1);
        assertThat(fault.apiChecks()).isEqualTo(3);
        assertThat(fault.loginChecks()).isEqualTo(1);
        assertThat(fault.malformed()).isEqualTo(1);
        assertThat(fault.rerouted()).isEqualTo(1);
        assertThat(ledger.sum(0, 60, -1).sent()).isEqualTo(7);
    }

    @Test
    void keepsAFewExamplesOfEachReasonWithTheirCounts() {
        Ledger ledger = new Ledger(1);
        for (int i = 0; i < 3; i++) {
            ledger.unanswered("broken: PrematureCloseException");
        }
        ledger.unanswered("timed out: ReadTimeoutException");
        for (int i = 0; i < 100; i++) {
            ledger.wrong("example " + i);
        }

        assertThat(ledger.unansweredReasons()).containsExactly(
                java.util.Map.entry("broken: PrematureCloseException", 3L), java.util.Map.entry("timed out: ReadTimeoutException", 1L));
        assertThat(ledger.wrongExamples()).hasSize(40);
    }
}
