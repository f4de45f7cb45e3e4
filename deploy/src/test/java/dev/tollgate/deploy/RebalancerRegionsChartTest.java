package dev.tollgate.deploy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.yaml.snakeyaml.Yaml;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rebalancer reads every region's usage. Region names (us-east) cannot be spelled in environment
 * variable names, so the chart hands it tollgate.regions as a file, with the other regions' Redis
 * Clusters as placeholders for variables taken from their Secrets.
 */
class RebalancerRegionsChartTest {

    private static final String DEPLOYMENT = "tollgate-budget-rebalancer";

    @ParameterizedTest
    @ValueSource(strings = {"us-east", "eu-west", "ap-south"})
    void givesTheRebalancerEveryRegionWithTheDefaultSplitAndTheOtherRegionsRedis(String region) {
        Manifests release = TollgateChart.render(region);
        Map<String, Object> regions = regionsFile(release);

        assertThat(regions).containsOnlyKeys("us-east", "eu-west", "ap-south");
        double sum = regions.values().stream().mapToDouble(r -> ((Number) ((Map<?, ?>) r).get("default-share")).doubleValue()).sum();
        assertThat(sum).as("the default split sums to 1").isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(((Map<?, ?>) regions.get(region)).keySet()).as("this region reads its own Redis through spring.data.redis.*")
                .isEqualTo(java.util.Set.of("default-share"));

        Tree container = release.one("Deployment", DEPLOYMENT).named("budget-rebalancer", "spec", "template", "spec", "containers");
        assertThat(container.named("SPRING_CONFIG_IMPORT", "env").at("value").text()).isEqualTo("file:/etc/tollgate/rebalancer/regions.yml");
        assertThat(container.named("regions", "volumeMounts").at("mountPath").text()).isEqualTo("/etc/tollgate/rebalancer");
        for (String other : TollgateChart.REGIONS) {
            if (other.equals(region)) {
                continue;
            }
            Map<?, ?> config = (Map<?, ?>) regions.get(other);
            String variable = "TOLLGATE_REGION_" + other.toUpperCase().replace('-', '_');
            Map<?, ?> redis = (Map<?, ?>) config.get("redis");
            assertThat(((Map<?, ?>) redis.get("cluster")).get("nodes")).isEqualTo("${" + variable + "_NODES}");
            assertThat(redis.get("password")).as("optional: a cluster without AUTH").isEqualTo("${" + variable + "_PASSWORD:}");
            assertThat(((Map<?, ?>) redis.get("ssl")).get("enabled")).as("the release's redis.tls.enabled").isEqualTo(true);
            Tree nodes = container.named(variable + "_NODES", "env").at("valueFrom", "secretKeyRef");
            assertThat(nodes.at("name").text()).isEqualTo("tollgate-redis-" + other);
            assertThat(nodes.at("key").text()).isEqualTo("nodes");
            assertThat(container.named(variable + "_PASSWORD", "env").at("valueFrom", "secretKeyRef", "optional").value()).isEqualTo(true);
        }
        assertThat(container.named("TOLLGATE_REGION_" + region.toUpperCase().replace('-', '_') + "_NODES", "env").exists()).isFalse();
    }

    @Test
    void aChangedSplitRollsTheRebalancer() {
        String before = TollgateChart.render("eu-west").one("Deployment", DEPLOYMENT)
                .at("spec", "template", "metadata", "annotations", "checksum/regions").text();
        String after = TollgateChart.render("eu-west", Map.of("regionDefaultShare", 0.3, "budgetRebalancer", Map.of("regions",
                Map.of("eu-west", Map.of("defaultShare", 0.3), "ap-south", Map.of("defaultShare", 0.1))))).one("Deployment", DEPLOYMENT)
                .at("spec", "template", "metadata", "annotations", "checksum/regions").text();

        assertThat(before).isNotBlank();
        assertThat(after).isNotEqualTo(before);
    }

    @Test
    void oneRegionNeedsNoRegionsFile() {
        Manifests release = TollgateChart.render("eu-west", Map.of("budgetRebalancer", Map.of("regions", nulls("us-east", "eu-west", "ap-south"))));
        Tree container = release.one("Deployment", DEPLOYMENT).named("budget-rebalancer", "spec", "template", "spec", "containers");

        assertThat(container.named("SPRING_CONFIG_IMPORT", "env").exists()).isFalse();
        assertThat(release.has("ConfigMap", "tollgate-rebalancer-regions")).isFalse();
    }

    @Test
    void refusesASplitThePodsDoNotUse() {
        String error = TollgateChart.renderFailure(List.of(TollgateChart.valuesFile("eu-west"),
                TollgateChart.writeValues(Map.of("regionDefaultShare", 0.3))));

        assertThat(error).contains("budgetRebalancer.regions.eu-west.defaultShare is 0.25 but regionDefaultShare is 0.3");
    }

    @Test
    void refusesRegionsWithoutThisOne() {
        String error = TollgateChart.renderFailure(List.of(TollgateChart.valuesFile("eu-west"),
                TollgateChart.writeValues(Map.of("budgetRebalancer", Map.of("regions", nulls("eu-west"))))));

        assertThat(error).contains("budgetRebalancer.regions lists ap-south, us-east but not this release's region eu-west");
    }

    @Test
    void refusesAnotherRegionWithoutItsSecret() {
        String error = TollgateChart.renderFailure(List.of(TollgateChart.valuesFile("eu-west"),
                TollgateChart.writeValues(Map.of("budgetRebalancer", Map.of("regions", Map.of("us-east", nulls("existingSecret")))))));

        assertThat(error).contains("budgetRebalancer.regions.us-east.existingSecret");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> regionsFile(Manifests release) {
        String file = release.one("ConfigMap", "tollgate-rebalancer-regions").at("data", "regions.yml").text();
        Map<String, Object> parsed = new Yaml().load(file);
        return (Map<String, Object>) ((Map<String, Object>) parsed.get("tollgate")).get("regions");
    }

    /** Values that delete these keys: Helm drops a key whose override is null. */
    private static Map<String, Object> nulls(String... keys) {
        Map<String, Object> values = new HashMap<>();
        for (String key : keys) {
            values.put(key, null);
        }
        return values;
    }
}
