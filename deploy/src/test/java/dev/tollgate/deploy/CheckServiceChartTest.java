package dev.tollgate.deploy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.FieldSource;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** check-service as the chart deploys it: sizing, disruption budget, probes, resources, scraping. */
class CheckServiceChartTest {

    private static final String NAME = "tollgate-check-service";

    @ParameterizedTest
    @CsvSource({"us-east, 50", "eu-west, 21", "ap-south, 13"})
    void autoscalesFromTheRegionsShareOfTraffic(String region, int minReplicas) {
        Tree hpa = TollgateChart.render(region).one("HorizontalPodAutoscaler", NAME);

        assertThat(hpa.at("apiVersion").text()).isEqualTo("autoscaling/v2");
        assertThat(hpa.at("spec", "scaleTargetRef", "kind").text()).isEqualTo("Deployment");
        assertThat(hpa.at("spec", "scaleTargetRef", "name").text()).isEqualTo(NAME);
        assertThat(hpa.at("spec", "minReplicas").value()).isEqualTo(minReplicas);
        assertThat((Integer) hpa.at("spec", "maxReplicas").value()).isGreaterThanOrEqualTo(2 * minReplicas);
    }

    @Test
    void leavesTheReplicaCountToTheAutoscaler() {
        // An upgrade that set replicas would first shrink 50 running pods to the chart's number.
        Tree deployment = TollgateChart.render("us-east").one("Deployment", NAME);

        assertThat(deployment.at("spec", "replicas").exists()).isFalse();
        assertThat(deployment.at("spec", "strategy", "rollingUpdate", "maxUnavailable").value()).isEqualTo(0);
    }

    @Test
    void setsReplicasItselfWhenAutoscalingIsOff() {
        Manifests release = TollgateChart.render("ap-south",
                Map.of("checkService", Map.of("autoscaling", Map.of("enabled", false), "replicas", 7)));

        assertThat(release.has("HorizontalPodAutoscaler", NAME)).isFalse();
        assertThat(release.one("Deployment", NAME).at("spec", "replicas").value()).isEqualTo(7);
    }

    @Test
    void canaryPodsAreLabelledAndToldSoAndOtherPodsAreNeither() {
        Tree canary = TollgateChart.render("eu-west", Map.of("checkService", Map.of("settings", Map.of("rules", Map.of("canary", true)))))
                .one("Deployment", NAME);
        Tree stable = TollgateChart.render("eu-west").one("Deployment", NAME);

        assertThat(canary.at("spec", "template", "metadata", "labels", "tollgate.dev/rules-canary").text()).isEqualTo("true");
        assertThat(canary.named("check-service", "spec", "template", "spec", "containers").named("TOLLGATE_RULES_CANARY", "env")
                .at("value").text()).isEqualTo("true");
        assertThat(canary.at("spec", "selector", "matchLabels").map()).as("the selector is the same: an upgrade cannot change it")
                .isEqualTo(stable.at("spec", "selector", "matchLabels").map());
        assertThat(stable.at("spec", "template", "metadata", "labels", "tollgate.dev/rules-canary").exists()).isFalse();
        assertThat(stable.named("check-service", "spec", "template", "spec", "containers").named("TOLLGATE_RULES_CANARY", "env")
                .at("value").text()).isEqualTo("false");
    }

    @ParameterizedTest
    @FieldSource("dev.tollgate.deploy.TollgateChart#REGIONS")
    void hasADisruptionBudgetOverItsOwnPods(String region) {
        Manifests release = TollgateChart.render(region);
        Tree pdb = release.one("PodDisruptionBudget", NAME);
        Tree deployment = release.one("Deployment", NAME);

        assertThat(pdb.at("apiVersion").text()).isEqualTo("policy/v1");
        assertThat(pdb.at("spec", "maxUnavailable").text()).isEqualTo("10%");
        assertThat(pdb.at("spec", "selector", "matchLabels").map())
                .isEqualTo(deployment.at("spec", "selector", "matchLabels").map())
                .containsEntry("app.kubernetes.io/component", "check-service");
    }

    @Test
    void isReadyThroughTheReadinessGroupAndAliveThroughTheLivenessGroup() {
        Tree container = checkServiceContainer();

        assertThat(container.at("readinessProbe", "httpGet", "path").text()).isEqualTo("/actuator/health/readiness");
        assertThat(container.at("readinessProbe", "httpGet", "port").text()).isEqualTo("management");
        assertThat(container.at("livenessProbe", "httpGet", "path").text()).isEqualTo("/actuator/health/liveness");
        assertThat(container.at("startupProbe", "httpGet", "path").text()).isEqualTo("/actuator/health/liveness");
        assertThat(container.named("http", "ports").at("containerPort").value()).isEqualTo(8080);
    }

    @Test
    void requestsAndLimitsItsResources() {
        Tree resources = checkServiceContainer().at("resources");

        assertThat(resources.at("requests", "cpu").text()).isNotBlank();
        assertThat(resources.at("requests", "memory").text()).isEqualTo("1Gi");
        assertThat(resources.at("limits", "memory").text()).isEqualTo(resources.at("requests", "memory").text());
        assertThat(resources.at("limits", "cpu").text()).isNotBlank();
        assertThat(checkServiceContainer().named("JAVA_TOOL_OPTIONS", "env").at("value").text())
                .contains("-XX:MaxRAMPercentage=")
                .as("an explicit collector: below 1,792 MB HotSpot would pick the serial one").contains("-XX:+UseG1GC", "-XX:MaxGCPauseMillis=10");
    }

    /**
     * Spring AOT where the pod has the configuration check-service's build was processed for (tracing off, rules from
     * rules-service), and never elsewhere: a pod of another shape started with it would be refused at start-up.
     */
    @Test
    void startsWithSpringAotOnlyInTheShapeItsBuildWasProcessedFor() {
        Map<String, Object> tracing = Map.of("tracing", Map.of("enabled", true, "otlpEndpoint", "http://otel-collector:4318/v1/traces"));
        Map<String, Object> staticRules = Map.of("checkService", Map.of("rules", Map.of("watch", false, "static", "rules: []")));
        Map<String, Object> optedOut = Map.of("checkService", Map.of("springAot", false));

        for (String region : TollgateChart.REGIONS) {
            assertThat(javaToolOptions(TollgateChart.render(region))).as(region).endsWith(" -Dspring.aot.enabled=true");
        }
        for (Map<String, Object> otherwise : List.of(tracing, staticRules, optedOut)) {
            assertThat(javaToolOptions(TollgateChart.render("us-east", otherwise))).as("%s", otherwise)
                    .startsWith("-XX:+UseG1GC").doesNotContain("spring.aot");
        }
    }

    private static String javaToolOptions(Manifests release) {
        return release.one("Deployment", NAME).named("check-service", "spec", "template", "spec", "containers")
                .named("JAVA_TOOL_OPTIONS", "env").at("value").text();
    }

    @Test
    void isScrapedByPrometheusOnTheManagementPort() {
        Tree annotations = TollgateChart.render("us-east").one("Deployment", NAME)
                .at("spec", "template", "metadata", "annotations");

        assertThat(annotations.map())
                .containsEntry("prometheus.io/scrape", "true")
                .containsEntry("prometheus.io/port", "9080")
                .containsEntry("prometheus.io/path", "/actuator/prometheus");
    }

    @ParameterizedTest
    @CsvSource({"us-east, 50", "eu-west, 21", "ap-south, 13"})
    void sizesFallbackByTheAutoscalersMinimumBeforeThePodHasCountedItsPeers(String region, String minReplicas) {
        Tree container = TollgateChart.render(region).one("Deployment", NAME)
                .named("check-service", "spec", "template", "spec", "containers");

        assertThat(container.named("TOLLGATE_PODS_MIN", "env").at("value").text()).isEqualTo(minReplicas);
        assertThat(container.named("TOLLGATE_READINESS_STORE_GRACE", "env").at("value").text()).isEqualTo("30s");
    }

    @Test
    void takesThePodFloorFromReplicasWithoutAutoscalingOrFromAnExplicitValue() {
        Tree fixed = TollgateChart.render("ap-south",
                        Map.of("checkService", Map.of("autoscaling", Map.of("enabled", false), "replicas", 7)))
                .one("Deployment", NAME).named("check-service", "spec", "template", "spec", "containers");
        Tree explicit = TollgateChart.render("us-east", Map.of("checkService", Map.of("podFloor", 40)))
                .one("Deployment", NAME).named("check-service", "spec", "template", "spec", "containers");

        assertThat(fixed.named("TOLLGATE_PODS_MIN", "env").at("value").text()).isEqualTo("7");
        assertThat(explicit.named("TOLLGATE_PODS_MIN", "env").at("value").text()).isEqualTo("40");
    }

    @Test
    void warmsUpBeforeReadyOnBothProtocolsUnlessToldWhichItsGatewaysSpeak() {
        Tree container = checkServiceContainer();
        assertThat(container.named("TOLLGATE_WARMUP_ENABLED", "env").at("value").text()).isEqualTo("true");
        assertThat(container.named("TOLLGATE_WARMUP_PROTOCOLS", "env").at("value").text()).isEqualTo("http,grpc");
        Tree envoyOnly = TollgateChart.render("us-east", Map.of("checkService", Map.of("settings", Map.of("warmUp", Map.of("protocols", "grpc")))))
                .one("Deployment", NAME).named("check-service", "spec", "template", "spec", "containers");
        assertThat(envoyOnly.named("TOLLGATE_WARMUP_PROTOCOLS", "env").at("value").text()).isEqualTo("grpc");
        assertThatThrownBy(() -> TollgateChart.render("us-east",
                Map.of("checkService", Map.of("settings", Map.of("warmUp", Map.of("protocols", "grpc,smtp"))))))
                .hasMessageContaining("protocols");
    }

    @Test
    void keepsTheDesignsStoreTimeout() {
        assertThat(checkServiceContainer().named("TOLLGATE_REDIS_COMMAND_TIMEOUT", "env").at("value").text()).isEqualTo("5ms");
    }

    @Test
    void spreadsOverZonesAndDrainsBeforeStopping() {
        Tree deployment = TollgateChart.render("us-east").one("Deployment", NAME);
        Tree pod = deployment.at("spec", "template", "spec");

        assertThat(pod.items("topologySpreadConstraints"))
                .singleElement()
                .satisfies(c -> assertThat(c.at("topologyKey").text()).isEqualTo("topology.kubernetes.io/zone"));
        assertThat(checkServiceContainer().texts("lifecycle", "preStop", "exec", "command")).contains("sleep");
        assertThat((Integer) pod.at("terminationGracePeriodSeconds").value()).isGreaterThan(5);
    }

    @Test
    void followsTheRulesFeedWithATokenFromASecretAndKeepsTheLastSnapshot() {
        Tree deployment = TollgateChart.render("us-east").one("Deployment", NAME);
        Tree container = checkServiceContainer();

        assertThat(container.named("TOLLGATE_RULES_SERVICE_URL", "env").at("value").text())
                .isEqualTo("http://tollgate-rules-service:8081");
        // mounted, not an env var: the kubelet refreshes a Secret volume, so a renewed token reaches running pods
        assertThat(container.named("TOLLGATE_RULES_TOKEN", "env").exists()).isFalse();
        assertThat(container.named("TOLLGATE_RULES_TOKEN_FILE", "env").at("value").text())
                .isEqualTo("/var/run/tollgate/watch-token/token");
        assertThat(container.named("watch-token", "volumeMounts").at("mountPath").text()).isEqualTo("/var/run/tollgate/watch-token");
        Tree volume = deployment.named("watch-token", "spec", "template", "spec", "volumes");
        assertThat(volume.at("secret", "secretName").text()).isEqualTo("tollgate-rules-watch");
        assertThat(volume.at("secret", "items").exists()).as("no subPath or items: those are never refreshed").isFalse();
        assertThat(container.named("TOLLGATE_RULES_SNAPSHOT_FILE", "env").at("value").text())
                .isEqualTo("/var/lib/tollgate/rules-snapshot.json");
        assertThat(container.named("rules-snapshot", "volumeMounts").at("mountPath").text()).isEqualTo("/var/lib/tollgate");
        // bounded: a pod that leaked files there would otherwise fill its node's disk
        assertThat(deployment.named("rules-snapshot", "spec", "template", "spec", "volumes").at("emptyDir", "sizeLimit").text()).isEqualTo("512Mi");
        assertThat(container.named("TOLLGATE_RULES_FILE", "env").exists()).isFalse();
    }

    @Test
    void obtainsTheTokenByClientCredentialsWithTheSecretMountedFromASecretOfItsOwn() {
        Manifests release = TollgateChart.render("us-east", clientCredentials(Map.of("secret", "pod-secret")));
        Tree deployment = release.one("Deployment", NAME);
        Tree container = deployment.named("check-service", "spec", "template", "spec", "containers");

        assertThat(container.named("TOLLGATE_RULES_CLIENTCREDENTIALS_TOKENURI", "env").at("value").text()).isEqualTo("https://idp.example/token");
        assertThat(container.named("TOLLGATE_RULES_CLIENTCREDENTIALS_CLIENTID", "env").at("value").text()).isEqualTo("tollgate-pods");
        assertThat(container.named("TOLLGATE_RULES_CLIENTCREDENTIALS_SCOPE", "env").at("value").text()).isEqualTo("ratelimit:watch");
        assertThat(container.named("TOLLGATE_RULES_CLIENTCREDENTIALS_CLOCKSKEW", "env").at("value").text()).isEqualTo("60s");
        // a mounted file, read for every token request: a rotated Secret reaches running pods
        assertThat(container.named("TOLLGATE_RULES_CLIENTCREDENTIALS_CLIENTSECRETFILE", "env").at("value").text())
                .isEqualTo("/var/run/tollgate/watch-client/client-secret");
        assertThat(container.named("watch-client", "volumeMounts").at("mountPath").text()).isEqualTo("/var/run/tollgate/watch-client");
        assertThat(deployment.named("watch-client", "spec", "template", "spec", "volumes").at("secret", "secretName").text())
                .isEqualTo("tollgate-watch-client");
        assertThat(container.named("TOLLGATE_RULES_TOKEN_FILE", "env").exists()).isFalse();
        assertThat(container.named("watch-token", "volumeMounts").exists()).isFalse();
        assertThat(release.one("Secret", "tollgate-watch-client").at("stringData", "client-secret").text()).isEqualTo("pod-secret");

        // the chart's Secret changes: the pods roll, as for every Secret the chart makes
        String before = deployment.at("spec", "template", "metadata", "annotations", "checksum/watch-client-secret").text();
        String after = TollgateChart.render("us-east", clientCredentials(Map.of("secret", "rotated"))).one("Deployment", NAME)
                .at("spec", "template", "metadata", "annotations", "checksum/watch-client-secret").text();
        assertThat(before).isNotBlank().isNotEqualTo(after);
    }

    @Test
    void readsTheClientSecretFromAnExistingSecretAndMakesNone() {
        Manifests release = TollgateChart.render("us-east", clientCredentials(Map.of("existingSecret", "idp-client", "secretKey", "secret")));
        Tree deployment = release.one("Deployment", NAME);

        assertThat(deployment.named("watch-client", "spec", "template", "spec", "volumes").at("secret", "secretName").text()).isEqualTo("idp-client");
        assertThat(deployment.named("check-service", "spec", "template", "spec", "containers")
                .named("TOLLGATE_RULES_CLIENTCREDENTIALS_CLIENTSECRETFILE", "env").at("value").text())
                .isEqualTo("/var/run/tollgate/watch-client/secret");
        assertThat(release.has("Secret", "tollgate-watch-client")).isFalse();
        assertThat(deployment.at("spec", "template", "metadata", "annotations", "checksum/watch-client-secret").exists()).isFalse();
    }

    @Test
    void refusesClientCredentialsWithoutTheirEndpointOrSecretOrBesideATokenSecret() {
        assertThat(TollgateChart.renderFailure("us-east", Map.of("checkService", Map.of("rules", Map.of("tokenSecret", "",
                "clientCredentials", Map.of("enabled", true, "clientId", "tollgate-pods", "secret", "s"))))))
                .contains("checkService.rules.clientCredentials.tokenUri");
        assertThat(TollgateChart.renderFailure("us-east", clientCredentials(Map.of())))
                .contains("checkService.rules.clientCredentials.secret");
        assertThat(TollgateChart.renderFailure("us-east", Map.of("checkService", Map.of("rules", Map.of(
                "clientCredentials", Map.of("enabled", true, "tokenUri", "https://idp.example/token", "clientId", "tollgate-pods", "secret", "s"))))))
                .contains("set tokenSecret or clientCredentials.enabled, not both");
        assertThat(TollgateChart.renderFailure("us-east", clientCredentials(Map.of("secret", "s", "clockSkew", "a minute"))))
                .contains("clockSkew");
    }

    /** The region's file with client credentials on (and its tokenSecret cleared), plus {@code more}. */
    private static Map<String, Object> clientCredentials(Map<String, Object> more) {
        Map<String, Object> credentials = new java.util.HashMap<>(Map.of("enabled", true, "tokenUri", "https://idp.example/token",
                "clientId", "tollgate-pods"));
        credentials.putAll(more);
        return Map.of("checkService", Map.of("rules", Map.of("tokenSecret", "", "clientCredentials", credentials)));
    }

    @ParameterizedTest
    @CsvSource({"us-east, 0.6", "eu-west, 0.25", "ap-south, 0.15"})
    void startsKeysOnTheDesignsDefaultSplit(String region, String share) {
        Tree container = TollgateChart.render(region).one("Deployment", NAME)
                .named("check-service", "spec", "template", "spec", "containers");

        assertThat(container.named("TOLLGATE_REGION", "env").at("value").text()).isEqualTo(region);
        assertThat(container.named("TOLLGATE_REGION_DEFAULT_SHARE", "env").at("value").text()).isEqualTo(share);
    }

    @Test
    void readsAStaticRulesFileFromAConfigMapWhenNotWatching() {
        Manifests release = TollgateChart.render("eu-west",
                Map.of("checkService", Map.of("rules", Map.of("watch", false, "static", "rules:\n  - id: free-global\n"))));
        Tree container = release.one("Deployment", NAME).named("check-service", "spec", "template", "spec", "containers");

        assertThat(container.named("TOLLGATE_RULES_SERVICE_URL", "env").exists()).isFalse();
        assertThat(container.named("TOLLGATE_RULES_FILE", "env").at("value").text()).isEqualTo("/etc/tollgate/rules.yml");
        assertThat(container.named("static-rules", "volumeMounts").at("mountPath").text()).isEqualTo("/etc/tollgate");
        assertThat(release.one("ConfigMap", "tollgate-check-rules").at("data", "rules.yml").text()).contains("free-global");
    }

    private static Tree checkServiceContainer() {
        return TollgateChart.render("us-east").one("Deployment", NAME)
                .named("check-service", "spec", "template", "spec", "containers");
    }
}
