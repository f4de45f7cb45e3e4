package dev.tollgate.limiter.rules;

import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Rule;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The precedence written in {@link RuleIndex}: account-wide rules, then the most specific route pattern's, plan before any plan. */
class RuleIndexTest {

    private static Rule rule(String id, String plan, String route) {
        return Rule.tokenBucket(id, "api", 10, 20).withMatch(new Match(plan, route));
    }

    private final RuleIndex index = new RuleIndex(List.of(
            rule("growth-global", "growth", null),
            rule("free-global", "free", "*"),
            rule("growth-labels", "growth", "/v1/labels"),
            rule("labels-any-plan", null, "/v1/labels"),
            rule("v1-any-plan", "*", "/v1/*"),
            rule("growth-exports", "growth", "/v1/exports*"),
            rule("growth-exports-daily", "growth", "/v1/exports*"),
            rule("login-ip", null, "/login"),
            Rule.tokenBucket("other-domain", "other", 1, 1).withMatch(new Match("growth", null))));

    private List<String> ids(String plan, String route) {
        return index.matching("api", plan, route).stream().map(Rule::id).toList();
    }

    @Test
    void theAccountWideRuleAndTheRoutesRuleBothApply() {
        assertThat(ids("growth", "/v1/labels")).containsExactly("growth-global", "growth-labels");
    }

    @Test
    void aPlansOwnRuleOnARouteTakesItOutOfTheRoutesAnyPlanRule() {
        assertThat(ids("free", "/v1/labels")).containsExactly("free-global", "labels-any-plan");
        assertThat(ids("growth", "/v1/labels")).doesNotContain("labels-any-plan");
    }

    @Test
    void anExactRouteWinsOverAPrefixAndALongerPrefixOverAShorter() {
        assertThat(ids("free", "/v1/labels")).contains("labels-any-plan").doesNotContain("v1-any-plan");
        assertThat(ids("growth", "/v1/exports/2026")).containsExactly("growth-global", "growth-exports", "growth-exports-daily");
        assertThat(ids("free", "/v1/exports/2026")).as("no free rule on the longer prefix: the shorter one's any-plan rule")
                .containsExactly("free-global", "v1-any-plan");
        assertThat(ids("free", "/v1")).as("/v1/* covers what is below /v1/, not /v1 itself").containsExactly("free-global");
    }

    @Test
    void withoutAPlanOnlyAnyPlanRulesOfTheRouteApply() {
        assertThat(ids(null, "/login")).containsExactly("login-ip");
        assertThat(ids(null, null)).isEmpty();
        assertThat(ids("growth", null)).containsExactly("growth-global");
        assertThat(ids("enterprise", "/nowhere")).isEmpty();
        assertThat(index.matching("no-such-domain", "growth", "/v1/labels")).isEmpty();
    }

    /** What a backend serves as /v1/labels cannot step around its rule by another spelling. */
    @Test
    void oddSpellingsOfARouteMatchItsRule() {
        for (String spelling : List.of("/v1/labels/", "/v1//labels", "/v1/./labels", "/v1/x/../labels", "/v1/%6cabels", "/v1/labels?x=1",
                "/v1/labels#top", "//v1/labels", "/v1/%2E/labels", "v1/labels", "/v1/labels;x", "/v1;a=b/labels;jsessionid=1",
                "/v1/x/..;/labels", "/v1/;/labels")) {
            assertThat(ids("growth", spelling)).as(spelling).containsExactly("growth-global", "growth-labels");
        }
        assertThat(ids("growth", "/v1%2Flabels")).as("an encoded slash is not a slash").doesNotContain("growth-labels");
        assertThat(ids("growth", "/V1/labels")).as("paths are case-sensitive").doesNotContain("growth-labels");
        assertThat(ids("growth", "/../../v1/labels")).as("above the root is the root").contains("growth-labels");
    }

    @Test
    void routesNormalizeToOneSpelling() {
        assertThat(Routes.normalize("")).isEqualTo("/");
        assertThat(Routes.normalize("/")).isEqualTo("/");
        assertThat(Routes.normalize("/a/b/../../..")).isEqualTo("/");
        assertThat(Routes.normalize("/a%")).isEqualTo("/a%");
        assertThat(Routes.normalize("/a%zz%4")).isEqualTo("/a%zz%4");
        assertThat(Routes.normalize("/%7E%41")).isEqualTo("/~A");
        assertThat(Routes.normalizePrefix("/v1/")).isEqualTo("/v1/");
    }

    @Test
    void tenThousandRulesAreFoundByLookUpNotByScan() {
        List<Rule> rules = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            rules.add(rule("r" + i, "plan" + (i % 10), (i % 2 == 0 ? "/route/" + i : "/prefix/" + i + "/*")));
        }
        RuleIndex big = new RuleIndex(rules);
        assertThat(big.matching("api", "plan4", "/route/4").stream().map(Rule::id)).containsExactly("r4");
        assertThat(big.matching("api", "plan5", "/prefix/9995/x").stream().map(Rule::id)).containsExactly("r9995");
        assertThat(big.matching("api", "plan5", "/prefix/9996/x")).isEmpty();
    }
}
