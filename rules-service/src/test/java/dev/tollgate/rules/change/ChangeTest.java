package dev.tollgate.rules.change;

import dev.tollgate.common.rule.AccountOverride;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Mode;
import dev.tollgate.common.rule.Rule;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ChangeTest {

    private final Rule v1 = Rule.tokenBucket("growth-global", "public-api", 100, 200).withMatch(new Match("growth", null));
    private final Rule v2 = v1.withMode(Mode.SHADOW).withVersion(2);
    private final AccountOverride launch = new AccountOverride("acct_1", "growth-global", 500, 1000, null, "launch week");

    @Test
    void aModeSwitchIsNamedForTheModeTheRuleIsIn() {
        assertThat(RuleChange.modeSwitched(v1, v2, "alice", null).kind()).isEqualTo(Change.Kind.SHADOW);
        assertThat(RuleChange.modeSwitched(v2, v1.withVersion(3), "alice", null).kind()).isEqualTo(Change.Kind.ENFORCE);
    }

    @Test
    void namesTheRuleAndTheAccountFromWhicheverValueItHolds() {
        assertThat(RuleChange.deleted(v2, "alice", "gone").ruleId()).isEqualTo("growth-global");
        OverrideChange deleted = OverrideChange.deleted(launch, "bob", "over");
        assertThat(deleted.ruleId()).isEqualTo("growth-global");
        assertThat(deleted.accountId()).isEqualTo("acct_1");
        assertThat(deleted.entity()).isEqualTo(Change.Entity.OVERRIDE);
    }

    @Test
    void anOverrideWrittenCarriesItsOwnReason() {
        assertThat(OverrideChange.created(launch, "bob").reason()).isEqualTo("launch week");
        assertThat(OverrideChange.replaced(launch, new AccountOverride("acct_1", "growth-global", 600, 1200, null, "more"), "bob").reason())
                .isEqualTo("more");
    }

    /** The history table's CHECK, held before the row is written: what a kind of change has before and after it. */
    @Test
    void refusesValuesItsKindCannotHave() {
        assertThatThrownBy(() -> new RuleChange(Change.Kind.CREATE, v1, v2, "alice", null))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("a CREATE has a value before and a value after");
        assertThatThrownBy(() -> new RuleChange(Change.Kind.REPLACE, null, v2, "alice", null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new OverrideChange(Change.Kind.DELETE, null, null, "bob", null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new OverrideChange(Change.Kind.SHADOW, launch, launch, "bob", null))
                .hasMessage("an override has no mode to switch, nor a rollout");
        assertThatThrownBy(() -> new OverrideChange(Change.Kind.PROMOTE, launch, launch, "bob", null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RuleChange.rolledBack(v2, null, "alice", null))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("a ROLLBACK has a value before and no value after");
    }
}
