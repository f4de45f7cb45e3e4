package dev.tollgate.deploy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rebalancer reads every region's usage. Region names (us-east) cannot be spelled in environment
 * variable names, so the chart hands it tollgate.regions by index and name (TOLLGATE_REGIONS_0_NAME=ap-south),
 * with the other regions' Redis Clusters from their Secrets: the variables budget-rebalancer's
 * PropertiesTest binds from a pod's environment.
 */
class RebalancerRegionsChartTest {

    private static final String DEPLOYMENT = "tollgate-budget-rebalancer";

    @ParameterizedTest
    @ValueSource(strings = {"us-east", "eu-west", "ap-south"})
    void givesTheRebalancerEveryRegionWithTheDefaultSplitAndTheOtherRegionsRedis(String region) {
        Tree container = container(TollgateChart.render(region));

        List<String> names = new ArrayList<>();
        double sum = 0;
        for (int i = 0; container.named("TOLLGATE_REGIONS_" + i + "_NAME", "env").exists(); i++) {
            String prefix = "TOLLGATE_REGIONS_" + i;
            String name = container.named(prefix + "_NAME", "env").at("value").text();
            names.add(name);
            sum += Double.parseDouble(container.named(prefix + "_DEFAULTSHARE", "env").at("value").text());
            if (name.equals(region)) {
                assertThat(container.named(prefix + "_REDIS_CLUSTER_NODES", "env").exists())
                        .as("this region reads its own Redis through spring.data.redis.*").isFalse();
                continue;
            }
            Tree nodes = container.named(prefix + "_REDIS_CLUSTER_NODES", "env").at("valueFrom", "secretKeyRef");
            assertThat(nodes.at("name").text()).isEqualTo("tollgate-redis-" + name);
            assertThat(nodes.at("key").text()).isEqualTo("nodes");
            assertThat(nodes.at("optional").exists()).isFalse();
            for (String key : List.of("username", "password")) {
                Tree ref = container.named(prefix + "_REDIS_" + key.toUpperCase(), "env").at("valueFrom", "secretKeyRef");
                assertThat(ref.at("key").text()).isEqualTo(key);
                assertThat(ref.at("optional").value()).as("a cluster without AUTH").isEqualTo(true);
            }
            assertThat(container.named(prefix + "_REDIS_SSL_ENABLED", "env").at("value").text()).as("the release's redis.tls.enabled")
                    .isEqualTo("true");
        }

        assertThat(names).as("in name order: indexes never move with a values file's order").containsExactly("ap-south", "eu-west", "us-east");
        assertThat(sum).as("the default split sums to 1").isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(container.named("SPRING_CONFIG_IMPORT", "env").exists()).as("no regions file any more").isFalse();
    }

    @Test
    void oneRegionNeedsNoRegionVariables() {
        Manifests release = TollgateChart.render("eu-west", Map.of("budgetRebalancer", Map.of("regions", nulls("us-east", "eu-west", "ap-south"))));

        assertThat(container(release).named("TOLLGATE_REGIONS_0_NAME", "env").exists()).isFalse();
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

    private static Tree container(Manifests release) {
        return release.one("Deployment", DEPLOYMENT).named("budget-rebalancer", "spec", "template", "spec", "containers");
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
