package dev.tollgate.common.validation;

import dev.tollgate.common.rule.AccountOverride;
import dev.tollgate.common.rule.Limit;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.RegionBudget;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.rule.RuleSnapshot;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What a pod refuses when a snapshot arrives: anything that would not pass rules-service's own checks. */
class SnapshotValidationTest {

    private final RuleValidator validator = new RuleValidator();
    private final Rule growth = Rule.tokenBucket("growth-global", "public-api", 100, 200).withMatch(new Match("growth", null));

    @Test
    void acceptsAGoodSnapshot() {
        RuleSnapshot snapshot = new RuleSnapshot(3, List.of(growth),
                List.of(new AccountOverride("acct_1", "growth-global", 1_000, 2_000, null, "launch")),
                List.of(new RegionBudget("growth-global", "acct_1", "us-east", 0.63, Instant.EPOCH)));
        assertThat(validator.validate(snapshot)).isEmpty();
    }

    @Test
    void refusesASnapshotWithOneBadRuleNamingIt() {
        RuleSnapshot snapshot = new RuleSnapshot(4, List.of(growth, growth.withLimit(Limit.TokenBucket.perSecond(0, 200)).withMatch(new Match("free", null))
                .withVersion(2)), List.of(), List.of());
        assertThat(validator.validate(snapshot)).extracting(Violation::field)
                .contains("rules[growth-global].rate_per_s", "rules[growth-global]");
    }

    @Test
    void refusesAnOverrideOfARuleTheSnapshotLacks() {
        RuleSnapshot snapshot = new RuleSnapshot(5, List.of(growth),
                List.of(new AccountOverride("acct_1", "gone", 10, 20, null, "x")), List.of());
        assertThat(validator.validate(snapshot)).extracting(Violation::field).containsExactly("overrides[acct_1/gone].rule_id");
    }

    @Test
    void refusesAShareOutsideZeroToOne() {
        RuleSnapshot snapshot = new RuleSnapshot(6, List.of(growth), List.of(),
                List.of(new RegionBudget("growth-global", "acct_1", "us-east", 0, Instant.EPOCH)));
        assertThat(validator.validate(snapshot)).extracting(Violation::field).containsExactly("region_budgets[growth-global/acct_1/us-east].share");
    }
}
