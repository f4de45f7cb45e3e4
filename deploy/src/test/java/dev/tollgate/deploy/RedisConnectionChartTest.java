package dev.tollgate.deploy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** How pods find and authenticate to the region's Redis Cluster: Spring Boot's spring.data.redis.*, nodes, ACL user, password and CA from one Secret. */
class RedisConnectionChartTest {

    private static final Map<String, Object> CHART_MADE_SECRETS = Map.of(
            "redis", Map.of(
                    "existingSecret", "",
                    "nodes", List.of("redis-0.internal:6379", "redis-1.internal:6379"),
                    "username", "tollgate",
                    "password", "redis-secret",
                    "tls", Map.of("ca", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")),
            "database", Map.of(
                    "existingSecret", "",
                    "url", "jdbc:postgresql://rules-db:5432/tollgate",
                    "username", "tollgate",
                    "password", "db-secret"));

    @ParameterizedTest
    @CsvSource({
            "tollgate-check-service,    check-service",
            "tollgate-rules-service,    rules-service",
            "tollgate-budget-rebalancer, budget-rebalancer"})
    void readsNodesUserAndPasswordFromTheExistingSecretAsSpringBootTakesThem(String deployment, String container) {
        Tree env = TollgateChart.render("us-east").one("Deployment", deployment)
                .named(container, "spec", "template", "spec", "containers");

        assertSecretRef(env.named("SPRING_DATA_REDIS_CLUSTER_NODES", "env"), "tollgate-redis", "nodes", false);
        assertSecretRef(env.named("SPRING_DATA_REDIS_USERNAME", "env"), "tollgate-redis", "username", true);
        assertSecretRef(env.named("SPRING_DATA_REDIS_PASSWORD", "env"), "tollgate-redis", "password", true);
        assertThat(env.named("SPRING_DATA_REDIS_SSL_ENABLED", "env").at("value").text()).isEqualTo("true");
    }

    @ParameterizedTest
    @CsvSource({
            "tollgate-check-service,    check-service",
            "tollgate-rules-service,    rules-service",
            "tollgate-budget-rebalancer, budget-rebalancer"})
    void trustsThePrivateRedisCaThroughAnSslBundleThatReloads(String deployment, String container) {
        Tree pod = TollgateChart.render("us-east").one("Deployment", deployment).at("spec", "template", "spec");

        Tree caVolume = pod.named("redis-ca", "volumes");
        assertThat(caVolume.at("secret", "secretName").text()).isEqualTo("tollgate-redis");
        assertThat(caVolume.at("secret", "items").items()).singleElement()
                .satisfies(item -> assertThat(item.at("key").text()).isEqualTo("ca.crt"));
        assertThat(pod.items("initContainers")).as("no keytool init container").isEmpty();

        Tree main = pod.named(container, "containers");
        Tree mount = main.named("redis-ca", "volumeMounts");
        assertThat(mount.at("mountPath").text()).isEqualTo("/etc/tollgate/redis-ca");
        assertThat(mount.at("subPath").exists()).as("the kubelet refreshes whole Secret volumes only").isFalse();
        assertThat(mount.at("readOnly").value()).isEqualTo(true);
        assertThat(main.named("SPRING_DATA_REDIS_SSL_BUNDLE", "env").at("value").text()).isEqualTo("redis");
        assertThat(main.named("SPRING_SSL_BUNDLE_PEM_REDIS_TRUSTSTORE_CERTIFICATE", "env").at("value").text())
                .isEqualTo("file:/etc/tollgate/redis-ca/ca.crt");
        assertThat(main.named("SPRING_SSL_BUNDLE_PEM_REDIS_RELOADONUPDATE", "env").at("value").text()).isEqualTo("true");
        assertThat(main.named("JAVA_TOOL_OPTIONS", "env").at("value").text()).as("no JVM-wide truststore").doesNotContain("trustStore");
    }

    @Test
    void givesTheRebalancerTheBundleForTheOtherRegionsToo() {
        Tree main = TollgateChart.render("us-east").one("Deployment", "tollgate-budget-rebalancer")
                .named("budget-rebalancer", "spec", "template", "spec", "containers");

        // ap-south and eu-west (indexes 0 and 1) are the other regions; us-east (2) reads spring.data.redis.*
        assertThat(main.named("TOLLGATE_REGIONS_0_REDIS_SSL_BUNDLE", "env").at("value").text()).isEqualTo("redis");
        assertThat(main.named("TOLLGATE_REGIONS_1_REDIS_SSL_BUNDLE", "env").at("value").text()).isEqualTo("redis");
        assertThat(main.named("TOLLGATE_REGIONS_2_REDIS_SSL_BUNDLE", "env").exists()).isFalse();
    }

    @Test
    void leavesTheJreTruststoreAloneForAPublicCa() {
        Tree pod = TollgateChart.render("eu-west", Map.of("redis", Map.of("tls", Map.of("privateCa", false))))
                .one("Deployment", "tollgate-check-service").at("spec", "template", "spec");

        assertThat(pod.named("redis-ca", "volumes").exists()).isFalse();
        Tree main = pod.named("check-service", "containers");
        assertThat(main.named("SPRING_DATA_REDIS_SSL_ENABLED", "env").at("value").text()).isEqualTo("true");
        assertThat(main.named("SPRING_DATA_REDIS_SSL_BUNDLE", "env").exists()).isFalse();
    }

    @Test
    void createsTheRedisSecretFromValuesWhenNoneIsGiven() {
        Manifests release = TollgateChart.renderWithHooks("ap-south", CHART_MADE_SECRETS);
        Tree secret = release.one("Secret", "tollgate-redis");

        assertThat(secret.at("stringData").map())
                .containsEntry("nodes", "redis-0.internal:6379,redis-1.internal:6379")
                .containsEntry("username", "tollgate")
                .containsEntry("password", "redis-secret")
                .containsKey("ca.crt");
        assertThat(Manifests.hookAnnotations(secret)).as("an ordinary object, not a hook").isEmpty();
        assertThat(release.one("Deployment", "tollgate-check-service")
                .at("spec", "template", "metadata", "annotations", "checksum/redis-secret").text())
                .as("a changed password rolls the pods").hasSize(64);
    }

    @Test
    void leavesOutCredentialKeysThatAreNotSet() {
        // An empty username would be sent as an ACL user named ""; an absent key leaves the property unset.
        Map<String, Object> noAcl = Map.of("redis", Map.of(
                "existingSecret", "",
                "nodes", List.of("redis-0:6379"),
                "tls", Map.of("ca", "-----BEGIN CERTIFICATE-----\n")));

        Tree secret = TollgateChart.render("ap-south", noAcl).one("Secret", "tollgate-redis");

        assertThat(secret.at("stringData").map()).containsOnlyKeys("nodes", "ca.crt");
    }

    @Test
    void refusesANodeGivenAsAUri() {
        // spring.data.redis.cluster.nodes takes host:port; a rediss:// seed of old would be read as host "rediss"
        Map<String, Object> uri = Map.of("redis", Map.of(
                "existingSecret", "", "nodes", List.of("rediss://redis-0:6379"), "tls", Map.of("ca", "x")));

        String error = TollgateChart.renderFailure(List.of(TollgateChart.valuesFile("us-east"), TollgateChart.writeValues(uri)));

        assertThat(error).contains("rediss://redis-0:6379").contains("host:port");
    }

    private static void assertSecretRef(Tree env, String secret, String key, boolean optional) {
        Tree ref = env.at("valueFrom", "secretKeyRef");
        assertThat(ref.at("name").text()).as("%s secret", env.at("name")).isEqualTo(secret);
        assertThat(ref.at("key").text()).as("%s key", env.at("name")).isEqualTo(key);
        assertThat(Boolean.TRUE.equals(ref.at("optional").value())).as("%s optional", env.at("name")).isEqualTo(optional);
        assertThat(env.at("value").exists()).as("%s has no literal value", env.at("name")).isFalse();
    }
}
