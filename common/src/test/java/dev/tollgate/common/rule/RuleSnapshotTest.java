package dev.tollgate.common.rule;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RuleSnapshotTest {

    @Test
    void dropsOverridesThatHaveExpiredAtTheGivenInstant() {
        Instant now = Instant.parse("2026-09-30T12:00:00Z");
        AccountOverride expired = new AccountOverride("a", "r", 1, 1, now, null);
        AccountOverride later = new AccountOverride("b", "r", 1, 1, now.plusSeconds(1), null);
        AccountOverride forever = new AccountOverride("c", "r", 1, 1, null, null);
        RuleSnapshot snapshot = new RuleSnapshot(7, List.of(), List.of(expired, later, forever), null);

        RuleSnapshot active = snapshot.activeAt(now);

        assertThat(active.overrides()).containsExactly(later, forever);
        assertThat(active.revision()).isEqualTo(7);
        assertThat(active.regionBudgets()).isEmpty();
    }
}
