package dev.tollgate.common.envoy;

import dev.tollgate.common.descriptor.DescriptorNode;
import dev.tollgate.common.rule.Limit;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.validation.Violation;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class EnvoyConfigTest {

    /** envoyproxy/ratelimit's README example, with its extras. */
    private static Map<String, Object> mongo() {
        return Map.of("domain", "mongo_cps", "descriptors", List.of(
                Map.of("key", "database", "value", "users", "rate_limit", Map.of("unit", "second", "requests_per_unit", 500)),
                Map.of("key", "database", "value", "default", "shadow_mode", true,
                        "rate_limit", Map.of("unit", "MINUTE", "requests_per_unit", 50, "name", "db-default")),
                Map.of("key", "path", "value", "/files/*", "share_threshold", true, "rate_limit", Map.of("unit", "hour", "requests_per_unit", 5)),
                Map.of("key", "remote_address", "detailed_metric", true, "rate_limit", Map.of("unit", "day", "requests_per_unit", 1000),
                        "descriptors", List.of(Map.of("key", "premium", "rate_limit",
                                Map.of("unlimited", true, "replaces", List.of(Map.of("name", "db-default"))))))));
    }

    @Test
    void eachRateLimitIsAFixedWindowOfItsUnitNamedAfterItsPath() {
        EnvoyConfig.Translation translation = EnvoyConfig.translate(mongo());

        assertThat(translation.violations()).isEmpty();
        assertThat(translation.rules()).extracting(Rule::id)
                .containsExactly("mongo_cps.database_users", "mongo_cps.database_default", translation.rules().get(2).id(), "mongo_cps.remote_address");
        assertThat(translation.rules().get(0).limit()).isEqualTo(new Limit.FixedWindow(500, 1));
        assertThat(translation.rules().get(1).limit()).isEqualTo(new Limit.FixedWindow(50, 60));
        assertThat(translation.rules().get(1).shadow()).isTrue();
        assertThat(translation.rules().get(3).limit()).isEqualTo(new Limit.FixedWindow(1000, 86_400));
        // a hits_addend up to the whole window is a cost the rule accepts, as envoyproxy/ratelimit counts it
        assertThat(translation.rules().get(0).maxCost()).isEqualTo(500);
        assertThat(translation.rules()).allSatisfy(rule -> assertThat(rule.domain()).isEqualTo("mongo_cps"));
    }

    @Test
    void theMappingKeepsWildcardsNamesReplacesAndUnlimited() {
        List<DescriptorNode> nodes = EnvoyConfig.translate(mongo()).mapping().descriptors();

        assertThat(nodes.get(1).name()).isEqualTo("db-default");
        assertThat(nodes.get(2).wildcard()).isTrue();
        assertThat(nodes.get(2).shareThreshold()).isTrue();
        assertThat(nodes.get(3).detailedMetric()).isTrue();
        DescriptorNode premium = nodes.get(3).descriptors().get(0);
        assertThat(premium.unlimited()).isTrue();
        assertThat(premium.rule()).isNull();
        assertThat(premium.replaces()).containsExactly("db-default");
    }

    @Test
    void aPathThatIsNoRuleIdIsCutAndDigestedAlwaysTheSameWay() {
        String id = EnvoyConfig.ruleId("mongo_cps.path_/files/*");
        assertThat(id).matches("mongo_cps\\.path_-files---[0-9a-f]{10}").isEqualTo(EnvoyConfig.ruleId("mongo_cps.path_/files/*"));
        assertThat(EnvoyConfig.ruleId("mongo_cps.path_/files/?")).isNotEqualTo(id);
        assertThat(EnvoyConfig.ruleId("x".repeat(300))).hasSize(64);
        assertThat(EnvoyConfig.ruleId("_a")).startsWith("e_a-");
    }

    @Test
    void whatTollgateDoesNotDoIsListedWithWhatHappensInstead() {
        Map<String, Object> quota = Map.of("domain", "d", "descriptors", List.of(
                Map.of("key", "k", "quota_mode", true, "value_to_metric", true, "metadata", Map.of("a", 1),
                        "rate_limit", Map.of("unit", "second", "requests_per_unit", 1)),
                Map.of("key", "nothing")));
        EnvoyConfig.Translation translation = EnvoyConfig.translate(quota);

        assertThat(translation.valid()).isTrue();
        assertThat(translation.notes()).extracting(EnvoyConfig.Note::field)
                .containsExactly("descriptors[0].quota_mode", "descriptors[0].value_to_metric", "descriptors[0].metadata", "descriptors[1]");
        assertThat(translation.mapping().descriptors()).hasSize(1);
    }

    @Test
    void aFileEnvoyproxyRatelimitRefusesIsRefusedWholeWithEveryReason() {
        Map<String, Object> bad = new HashMap<>();
        bad.put("domain", "d");
        bad.put("descripters", List.of());
        bad.put("descriptors", List.of(
                Map.of("key", "", "rate_limit", Map.of("unit", "second", "requests_per_unit", 1)),
                Map.of("key", "a", "rate_limit", Map.of("unit", "fortnight", "requests_per_unit", 1)),
                Map.of("key", "b", "rate_limit", Map.of("unlimited", true, "unit", "second")),
                Map.of("key", "c", "rate_limit", Map.of("unit", "second", "requests_per_unit", 1, "name", "c", "replaces", List.of(Map.of("name", "c")))),
                Map.of("key", "c", "rate_limit", Map.of("unit", "second", "requests_per_unit", 0)),
                Map.of("key", "e", "value", "plain", "share_threshold", true, "rate_limit", Map.of("unit", "second", "requests_per_unit", 1))));
        EnvoyConfig.Translation translation = EnvoyConfig.translate(bad);

        assertThat(translation.valid()).isFalse();
        assertThat(translation.rules()).isEmpty();
        assertThat(translation.mapping().descriptors()).isEmpty();
        assertThat(translation.violations()).extracting(Violation::field).containsExactlyInAnyOrder(
                "descripters", "descriptors[0].key", "descriptors[1].rate_limit.unit", "descriptors[2].rate_limit.unit",
                "descriptors[3].rate_limit.replaces[0]", "descriptors[4]", "descriptors[4].rate_limit.requests_per_unit",
                "descriptors[5].share_threshold");
    }

    @Test
    void notAMapOrNoDomainIsRefused() {
        assertThat(EnvoyConfig.translate(List.of()).violations()).extracting(Violation::field).containsExactly("");
        assertThat(EnvoyConfig.translate(Map.of("descriptors", List.of())).violations()).extracting(Violation::field).containsExactly("domain");
        assertThat(EnvoyConfig.translate(Map.of("domain", "d", "descriptors", "x")).violations()).extracting(Violation::field).containsExactly("descriptors");
    }

    @Test
    void aDomainWithoutDescriptorsIsServedAndLimitsNothing() {
        EnvoyConfig.Translation translation = EnvoyConfig.translate(Map.of("domain", "empty"));
        assertThat(translation.valid()).isTrue();
        assertThat(translation.rules()).isEmpty();
        assertThat(translation.mapping().descriptors()).isEmpty();
    }

    @Test
    void aValueThePodsCannotMatchIsRefusedAsTheirValidatorWould() {
        EnvoyConfig.Translation translation = EnvoyConfig.translate(Map.of("domain", "d", "descriptors", List.of(
                Map.of("key", "k", "value", "a\tb", "rate_limit", Map.of("unit", "second", "requests_per_unit", 1)))));
        assertThat(translation.violations()).extracting(Violation::field).containsExactly("descriptors[0].value");
    }

    @Test
    void aNumberBeyondALongIsRefusedNotWrapped() {
        for (Object huge : List.<Object>of(new BigInteger("18446744073709551621"), 1e20)) {
            EnvoyConfig.Translation translation = EnvoyConfig.translate(Map.of("domain", "d", "descriptors", List.of(
                    Map.of("key", "k", "rate_limit", Map.of("unit", "second", "requests_per_unit", huge)))));
            assertThat(translation.violations()).as("%s", huge).extracting(Violation::field)
                    .containsExactly("descriptors[0].rate_limit.requests_per_unit");
        }
    }
}
