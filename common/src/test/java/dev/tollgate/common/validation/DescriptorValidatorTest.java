package dev.tollgate.common.validation;

import dev.tollgate.common.descriptor.DescriptorDomain;
import dev.tollgate.common.descriptor.DescriptorNode;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.rule.RuleSnapshot;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class DescriptorValidatorTest {

    private static final Rule ACCOUNT = Rule.tokenBucket("growth-global", "public-api", 100, 200).withMatch(new Match("growth", null));
    private static final Rule ROUTE = Rule.tokenBucket("labels-route", "public-api", 1, 2).withMatch(new Match("growth", "/v1/labels"));
    private static final Rule LOGIN = Rule.slidingLog("login-ip", "auth", 5, 60).withMatch(new Match(null, "/login"));
    private static final Map<String, Rule> RULES = Map.of(ACCOUNT.id(), ACCOUNT, ROUTE.id(), ROUTE, LOGIN.id(), LOGIN);

    private final DescriptorValidator validator = new DescriptorValidator();

    @Test
    void acceptsANestedMappingOfKnownRules() {
        assertThat(validator.validate(good(), RULES)).isEmpty();
    }

    @Test
    void refusesARuleThatDoesNotExist() {
        assertThat(messages(domain(leaf("account", null, "no-such-rule", null))))
                .containsExactly("descriptors[0].rule: names no rule no-such-rule");
    }

    @Test
    void refusesARuleOfAnotherDomain() {
        assertThat(messages(domain(leaf("remote_address", null, "login-ip", null))))
                .containsExactly("descriptors[0].rule: names rule login-ip of domain auth, not of this domain");
    }

    @Test
    void refusesALimitKeyOffThePath() {
        DescriptorNode route = leaf("route", "/v1/labels", "labels-route", "plan");
        assertThat(messages(domain(new DescriptorNode("account", null, null, null, List.of(route)))))
                .containsExactly("descriptors[0].descriptors[0].limit_key: must be the key of this node or of one above it (plan is neither)");
    }

    @Test
    void refusesANodeThatMapsNothing() {
        assertThat(messages(domain(new DescriptorNode("account", null, null, null, List.of()))))
                .containsExactly("descriptors[0]: names no rule, is not unlimited and has no descriptors below it: it maps nothing");
    }

    @Test
    void refusesALimitKeyWithoutARule() {
        DescriptorNode route = leaf("route", null, "labels-route", null);
        assertThat(messages(domain(new DescriptorNode("account", null, null, "account", List.of(route)))))
                .containsExactly("descriptors[0].limit_key: is only meaningful beside a rule");
    }

    @Test
    void refusesTwoNodesMatchingTheSameEntry() {
        assertThat(messages(domain(leaf("account", null, "growth-global", null), leaf("account", null, "labels-route", null))))
                .containsExactly("descriptors[1]: matches the same key as a node before it");
        assertThat(messages(domain(leaf("route", "/a", "growth-global", null), leaf("route", "/a", "labels-route", null))))
                .containsExactly("descriptors[1]: matches the same key and value as a node before it");
        assertThat(messages(domain(leaf("route", "/a", "growth-global", null), leaf("route", null, "labels-route", null)))).isEmpty();
    }

    @Test
    void refusesMissingKeysEmptyValuesAndControlCharacters() {
        assertThat(messages(domain(leaf(null, null, "growth-global", null)))).containsExactly("descriptors[0].key: is required");
        assertThat(messages(domain(leaf("route", "", "growth-global", null))))
                .containsExactly("descriptors[0].value: must be 1-256 characters, without control characters, or left out to match any value");
        assertThat(messages(domain(leaf("ro\nute", null, "growth-global", null))))
                .containsExactly("descriptors[0].key: must be at most 128 characters, without control characters");
    }

    @Test
    void refusesAnEmptyDomainOrNoDescriptors() {
        assertThat(messages(new DescriptorDomain(" ", List.of(leaf("account", null, "growth-global", null)), 0)))
                .contains("domain: is required");
        assertThat(messages(new DescriptorDomain("public-api", List.of(), 0)))
                .containsExactly("descriptors: must hold at least one descriptor");
    }

    @Test
    void refusesATreeDeeperThanEightLevels() {
        DescriptorNode node = leaf("k9", null, "growth-global", null);
        for (int i = 8; i >= 1; i--) {
            node = new DescriptorNode("k" + i, null, null, null, List.of(node));
        }
        assertThat(messages(domain(node))).containsExactly(
                "descriptors[0].descriptors[0].descriptors[0].descriptors[0].descriptors[0].descriptors[0].descriptors[0].descriptors[0].descriptors: nest deeper than 8 levels");
    }

    @Test
    void refusesMoreThanAThousandNodes() {
        List<DescriptorNode> wide = new ArrayList<>();
        for (int i = 0; i < 1001; i++) {
            wide.add(leaf("route", "/r" + i, "growth-global", null));
        }
        assertThat(messages(new DescriptorDomain("public-api", wide, 0))).containsExactly("descriptors: hold 1001 nodes; at most 1000 are allowed");
    }

    @Test
    void aSnapshotWithABadMappingOrADomainTwiceIsRefused() {
        RuleSnapshot snapshot = new RuleSnapshot(3, List.of(ACCOUNT, ROUTE), List.of(), List.of(),
                List.of(good(), good(), domain(leaf("account", null, "login-ip", null))));
        assertThat(new RuleValidator().validate(snapshot)).extracting(Violation::toString).containsExactly(
                "descriptor_domains[public-api]: appears twice",
                "descriptor_domains[public-api].descriptors[0].rule: names no rule login-ip",
                "descriptor_domains[public-api]: appears twice");
    }

    static DescriptorDomain good() {
        DescriptorNode route = leaf("route", "/v1/labels", "labels-route", "account");
        return domain(new DescriptorNode("account", null, "growth-global", null, List.of(route)));
    }

    private static DescriptorDomain domain(DescriptorNode... nodes) {
        return new DescriptorDomain("public-api", List.of(nodes), 0);
    }

    private static DescriptorNode leaf(String key, String value, String rule, String limitKey) {
        return new DescriptorNode(key, value, rule, limitKey, List.of());
    }

    private List<String> messages(DescriptorDomain mapping) {
        return validator.validate(mapping, RULES).stream().map(Violation::toString).toList();
    }

    @Test
    void envoyproxyRatelimitsExtrasStandOnlyWhereTheyMeanSomething() {
        DescriptorNode unlimitedWithRule = new DescriptorNode("account", null, "growth-global", null, true, null, null, false, false, List.of());
        DescriptorNode selfReplacing = new DescriptorNode("route", null, "labels-route", null, false, "me", List.of("me", ""), false, false, List.of());
        DescriptorNode plainShared = new DescriptorNode("plan", "free", "growth-global", null, false, null, null, true, false, List.of());
        DescriptorNode detailedNothing = new DescriptorNode("ip", null, null, null, false, null, List.of("x"), false, true,
                List.of(leaf("route", null, "labels-route", null)));
        assertThat(messages(domain(unlimitedWithRule, selfReplacing, plainShared, detailedNothing))).containsExactly(
                "descriptors[0].unlimited: cannot be beside a rule: a node is limited by its rule or not at all",
                "descriptors[1].replaces[0]: names this node itself",
                "descriptors[1].replaces[1]: must name a limit: 1-128 characters, without control characters",
                "descriptors[2].share_threshold: is only meaningful on a wildcard value (one holding *)",
                "descriptors[3].detailed_metric: is only meaningful beside a rule");
    }

    @Test
    void anUnlimitedNodeMapsSomethingWithoutARule() {
        assertThat(messages(domain(new DescriptorNode("plan", "premium", null, null, true, "premium", List.of("default"), false, false, List.of()))))
                .isEmpty();
    }
}
