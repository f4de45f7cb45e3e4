package dev.tollgate.limiter.rules;

import dev.tollgate.common.rule.AccountOverride;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Limit;
import dev.tollgate.common.rule.RegionBudget;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.rule.RuleSnapshot;
import dev.tollgate.testsupport.time.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SnapshotRuleBookTest {

    private static final Instant NOW = Instant.parse("2026-09-30T12:00:00Z");
    private final MutableClock clock = new MutableClock(NOW);
    private final SnapshotRuleBook book = new SnapshotRuleBook(clock, "eu-west", 0.25);
    private final Rule growth = Rule.tokenBucket("growth-global", "public-api", 100, 200).withMatch(new Match("growth", null));

    @Test
    void knowsNothingBeforeTheFirstSnapshot() {
        assertThat(book.revision()).isEmpty();
        assertThat(book.find("public-api", "growth-global", "acct_1")).isNull();
    }

    @Test
    void aViewKeepsItsSnapshotWhileANewOneIsApplied() {
        // one check reads its rules, overrides and shares from one revision
        book.apply(new RuleSnapshot(7, List.of(growth), List.of(), List.of(new RegionBudget("growth-global", "acct_1", "eu-west", 0.5, NOW))));
        RuleBook view = book.view();
        book.apply(new RuleSnapshot(8, List.of(), List.of(), List.of()));
        assertThat(view.find("public-api", "growth-global", "acct_1")).isEqualTo(growth);
        assertThat(view.share(growth, "acct_1")).isEqualTo(0.5);
        assertThat(book.find("public-api", "growth-global", "acct_1")).isNull();
        assertThat(view.loaded()).isTrue();
        assertThat(new SnapshotRuleBook(clock, "eu-west", 0.25).view().loaded()).isFalse();
    }

    @Test
    void findsARuleOnlyInItsDomain() {
        book.apply(new RuleSnapshot(7, List.of(growth), List.of(), List.of()));
        assertThat(book.revision()).hasValue(7);
        assertThat(book.find("public-api", "growth-global", "acct_1")).isEqualTo(growth);
        assertThat(book.find("other", "growth-global", "acct_1")).isNull();
    }

    @Test
    void anOverrideReplacesRateAndBurstForItsAccountUntilItExpires() {
        AccountOverride launch = new AccountOverride("acct_1", "growth-global", 25_000, 50_000, NOW.plusSeconds(60), "launch week");
        book.apply(new RuleSnapshot(8, List.of(growth), List.of(launch), List.of()));

        Rule raised = book.find("public-api", "growth-global", "acct_1");
        assertThat(raised.limit()).isEqualTo(new Limit.TokenBucket(25_000, 1, 50_000));
        assertThat(book.find("public-api", "growth-global", "acct_2")).isEqualTo(growth);

        clock.advance(Duration.ofSeconds(60));
        assertThat(book.find("public-api", "growth-global", "acct_1")).as("expired at expires_at, no job needed").isEqualTo(growth);
    }

    @Test
    void theRegionsBudgetSetsTheShareAndAKeyWithoutOneGetsTheDefault() {
        book.apply(new RuleSnapshot(9, List.of(growth), List.of(), List.of(
                new RegionBudget("growth-global", "acct_1", "us-east", 0.63, NOW),
                new RegionBudget("growth-global", "acct_1", "eu-west", 0.27, NOW),
                new RegionBudget("growth-global", "acct_1", "ap-south", 0.10, NOW))));
        assertThat(book.share(growth, "acct_1")).isEqualTo(0.27);
        assertThat(book.share(growth, "acct_2")).isEqualTo(0.25);
    }

    @Test
    void aNewSnapshotReplacesTheOldOneWhole() {
        AccountOverride launch = new AccountOverride("acct_1", "growth-global", 25_000, 50_000, null, "x");
        book.apply(new RuleSnapshot(10, List.of(growth), List.of(launch), List.of()));
        book.apply(new RuleSnapshot(11, List.of(growth), List.of(), List.of()));
        assertThat(book.find("public-api", "growth-global", "acct_1")).isEqualTo(growth);
    }
}
