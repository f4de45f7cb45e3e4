package dev.tollgate.limiter.rules;

import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Rule;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StaticRuleBookTest {

    private static final Match GROWTH = new Match("growth", null);

    @Test
    void refusesOneRuleIdInTwoDomainsWhichWouldShareOneBucket() {
        // counters are named by rule id alone (rl:{key}:<rule>), not by domain
        Rule inApi = Rule.tokenBucket("growth-global", "public-api", 100, 200).withMatch(GROWTH);
        Rule inPartners = Rule.tokenBucket("growth-global", "partners", 5, 10).withMatch(GROWTH);
        assertThatThrownBy(() -> new StaticRuleBook(List.of(inApi, inPartners)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unique across domains");
    }
}
