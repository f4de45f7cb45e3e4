package dev.tollgate.rules.console;

import dev.tollgate.common.rule.FailMode;
import dev.tollgate.common.rule.Limit;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.rule.RuleFields;
import dev.tollgate.rules.problem.InvalidRuleException;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RuleFormTest {

    private final Rule stored = Rule.tokenBucket("growth-global", "public-api", 100, 200).withVersion(1);

    @Test
    void aStaleEditKeepsWhatTheEditorChangedAndTakesTheNewerValueOfEverythingElse() {
        RuleForm base = RuleForm.of(stored);
        RuleForm mine = new RuleForm(1L, 100, 1, 300, null, null, 1, "open", "bigger bursts");
        RuleForm newer = RuleForm.of(stored.withLimit(Limit.TokenBucket.perSecond(120, 200)).withVersion(2));

        RuleForm rebased = mine.rebase(base, newer);

        assertThat(rebased.version()).isEqualTo(2);
        assertThat(rebased.ratePerS()).as("someone else's new rate is kept").isEqualTo(120);
        assertThat(rebased.burst()).as("the editor's burst is kept").isEqualTo(300);
        assertThat(rebased.reason()).isEqualTo("bigger bursts");
        assertThat(mine.clashesWith(base, newer)).isEmpty();
    }

    @Test
    void namesTheFieldsBothSidesChangedDifferently() {
        RuleForm base = RuleForm.of(stored);
        RuleForm mine = new RuleForm(1L, 150, 1, 200, null, null, 1, "open", "more");
        RuleForm newer = RuleForm.of(stored.withLimit(Limit.TokenBucket.perSecond(120, 200)).withVersion(2));

        assertThat(mine.clashesWith(base, newer)).containsExactly("rate_per_s");
        assertThat(mine.rebase(base, newer).ratePerS()).as("the form holds the editor's value").isEqualTo(150);
    }

    @Test
    void readsAVersionAsTheHistoryStoresIt() {
        RuleForm read = RuleForm.of(JsonMapper.builder().build().readTree(
                "{\"rate_per_s\":100,\"period_s\":1,\"burst\":200,\"limit\":null,\"max_cost\":1,\"fail_mode\":\"open\"}"), 1);

        assertThat(read).isEqualTo(new RuleForm(1L, 100, 1, 200, null, null, 1, "open", null));
    }

    @Test
    void keepsTheRulesIdentityAndEmptiesTheOtherAlgorithmsFields() {
        RuleFields edited = new RuleForm(1L, 100, 1, 300, 5, 60, 2, "closed", "why").applyTo(stored);

        assertThat(edited.burst()).isEqualTo(300);
        assertThat(edited.limit()).isNull();
        assertThat(edited.windowS()).isNull();
        assertThat(edited.failMode()).isEqualTo(FailMode.CLOSED);
        assertThat(edited.domain()).isEqualTo("public-api");
    }

    @Test
    void anEditKeepsACountAfterRuleCountingAfter() {
        Rule countsAfter = stored.withCounting(dev.tollgate.common.rule.Counting.AFTER);
        RuleFields edited = new RuleForm(1L, 100, 1, 300, null, null, 2, "open", "why").applyTo(countsAfter);
        assertThat(edited.counting()).isEqualTo(dev.tollgate.common.rule.Counting.AFTER);
    }

    @Test
    void refusesAFailModeThatIsNeitherOpenNorClosed() {
        assertThatThrownBy(() -> new RuleForm(1L, 100, 1, 300, null, null, 1, "sideways", "why").applyTo(stored))
                .isInstanceOf(InvalidRuleException.class)
                .satisfies(e -> assertThat(((InvalidRuleException) e).violations()).extracting(v -> v.field()).isEqualTo(List.of("fail_mode")));
    }
}
