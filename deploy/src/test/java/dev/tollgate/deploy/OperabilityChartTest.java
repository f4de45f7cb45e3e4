package dev.tollgate.deploy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.FieldSource;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an operator installing the chart on kube-prometheus-stack relies on: values checked against a
 * schema, pods scraped through a PodMonitor on a management port no Service exposes, upgrades that roll
 * pods when a chart-made Secret changes, and disruption budgets, spread and scheduling hooks on every
 * service.
 */
class OperabilityChartTest {

    private static final List<String> SERVICES = List.of("check-service", "rules-service", "budget-rebalancer");

    private static final Map<String, Object> CHART_MADE_SECRETS = Map.of(
            "database", Map.of("existingSecret", "", "url", "jdbc:postgresql://rules-db:5432/tollgate",
                    "username", "tollgate", "password", "first-password"),
            "redis", Map.of("existingSecret", "", "nodes", List.of("redis-0:6379"), "password", "redis-password",
                    "tls", Map.of("ca", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----")));

    @Test
    void refusesAMistypedKeyInsteadOfDroppingIt() {
        String error = TollgateChart.renderFailure("us-east", Map.of("checkService", Map.of("replcias", 4)));

        assertThat(error).contains("replcias").containsIgnoringCase("additional properties");
    }

    @Test
    void refusesAMistypedKeyAtTheTopLevelAndAValueOfTheWrongType() {
        assertThat(TollgateChart.renderFailure("eu-west", Map.of("prometheusRules", Map.of("enabled", true))))
                .contains("prometheusRules");
        assertThat(TollgateChart.renderFailure("eu-west", Map.of("checkService", Map.of("managementPort", "nine"))))
                .contains("managementPort");
        assertThat(TollgateChart.renderFailure("eu-west", Map.of("checkService", Map.of("storeTimeout", "5 millis"))))
                .contains("storeTimeout");
    }

    @ParameterizedTest
    @FieldSource("dev.tollgate.deploy.TollgateChart#REGIONS")
    void scrapesEveryServiceThroughAPodMonitorWhenTheAlertsAreOn(String region) {
        Tree monitor = TollgateChart.render(region, Map.of("prometheusRule", Map.of("labels", Map.of("release", "kube-prometheus-stack"))))
                .one("PodMonitor", "tollgate");

        assertThat(monitor.at("apiVersion").text()).isEqualTo("monitoring.coreos.com/v1");
        assertThat(monitor.at("metadata", "labels", "release").text()).as("the operator's podMonitorSelector").isEqualTo("kube-prometheus-stack");
        assertThat(monitor.at("spec", "selector", "matchLabels").map())
                .containsEntry("app.kubernetes.io/instance", "tollgate")
                .doesNotContainKey("app.kubernetes.io/component");
        assertThat(monitor.items("spec", "selector", "matchExpressions")).singleElement()
                .satisfies(e -> assertThat(e.texts("values")).containsExactlyInAnyOrderElementsOf(SERVICES));
        assertThat(monitor.items("spec", "podMetricsEndpoints")).singleElement().satisfies(endpoint -> {
            assertThat(endpoint.at("port").text()).isEqualTo("management");
            assertThat(endpoint.at("path").text()).isEqualTo("/actuator/prometheus");
        });
    }

    @Test
    void rendersNoPodMonitorWithoutTheAlerts() {
        assertThat(TollgateChart.render("us-east", Map.of("prometheusRule", Map.of("enabled", false))).ofKind("PodMonitor")).isEmpty();
    }

    @ParameterizedTest
    @CsvSource({"check-service, 8080, 9080", "rules-service, 8081, 9081", "budget-rebalancer, 8082, 9082"})
    void servesActuatorOnAManagementPortThatNoServiceExposes(String service, int apiPort, int managementPort) {
        Manifests release = TollgateChart.render("us-east");
        Tree container = release.one("Deployment", "tollgate-" + service).named(service, "spec", "template", "spec", "containers");

        assertThat(container.named("MANAGEMENT_SERVER_PORT", "env").at("value").text()).isEqualTo(String.valueOf(managementPort));
        assertThat(container.named("management", "ports").at("containerPort").value()).isEqualTo(managementPort);
        assertThat(container.named("http", "ports").at("containerPort").value()).isEqualTo(apiPort);
        for (String probe : List.of("startupProbe", "readinessProbe", "livenessProbe")) {
            assertThat(container.at(probe, "httpGet", "port").text()).as(probe).isEqualTo("management");
        }
        List<Tree> servicePorts = release.one("Service", "tollgate-" + service).items("spec", "ports");
        assertThat(servicePorts).anySatisfy(port -> {
            assertThat(port.at("port").value()).isEqualTo(apiPort);
            assertThat(port.at("targetPort").text()).isEqualTo("http");
        });
        assertThat(servicePorts).noneSatisfy(port -> assertThat(port.at("targetPort").text()).isEqualTo("management"))
                .noneSatisfy(port -> assertThat(port.at("port").value()).isEqualTo(managementPort));
        assertThat(release.one("Deployment", "tollgate-" + service).at("spec", "template", "metadata", "annotations", "prometheus.io/port").text())
                .isEqualTo(String.valueOf(managementPort));
    }

    @Test
    void rollsEveryPodThatReadsAChartMadeSecretWhenTheSecretChanges() {
        Manifests first = TollgateChart.render("us-east", CHART_MADE_SECRETS);
        Manifests second = TollgateChart.render("us-east", CHART_MADE_SECRETS,
                Map.of("database", Map.of("password", "rotated-password"), "redis", Map.of("password", "rotated-redis")));

        for (String service : SERVICES) {
            Map<String, Object> before = podAnnotations(first, service);
            Map<String, Object> after = podAnnotations(second, service);
            assertThat(before).as(service).containsKey("checksum/redis-secret");
            assertThat(after.get("checksum/redis-secret")).as(service).isNotEqualTo(before.get("checksum/redis-secret"));
        }
        for (String service : List.of("rules-service", "budget-rebalancer")) {
            assertThat(podAnnotations(second, service).get("checksum/database-secret")).as(service)
                    .isNotNull()
                    .isNotEqualTo(podAnnotations(first, service).get("checksum/database-secret"));
        }
        assertThat(podAnnotations(first, "check-service")).as("check-service reads no database").doesNotContainKey("checksum/database-secret");
    }

    @Test
    void keepsThePodsWhenOnlyTheRedisCaIsRenewed() {
        Manifests first = TollgateChart.render("us-east", CHART_MADE_SECRETS,
                Map.of("redis", Map.of("tls", Map.of("ca", "-----BEGIN CERTIFICATE-----\nold\n-----END CERTIFICATE-----"))));
        Manifests renewed = TollgateChart.render("us-east", CHART_MADE_SECRETS,
                Map.of("redis", Map.of("tls", Map.of("ca", "-----BEGIN CERTIFICATE-----\nnew\n-----END CERTIFICATE-----"))));

        // the Secret carries the new CA, which the pods' SSL bundle reloads from the mounted file
        assertThat(renewed.one("Secret", "tollgate-redis").at("stringData", "ca.crt").text()).contains("new");
        for (String service : SERVICES) {
            assertThat(podAnnotations(renewed, service).get("checksum/redis-secret")).as(service)
                    .isNotNull()
                    .isEqualTo(podAnnotations(first, service).get("checksum/redis-secret"));
        }
    }

    @Test
    void leavesOutChecksumsOfSecretsTheOperatorManages() {
        // the region files name existing Secrets: the chart cannot see their content, so it claims no checksum
        for (String service : SERVICES) {
            assertThat(podAnnotations(TollgateChart.render("us-east"), service).keySet()).as(service)
                    .noneMatch(key -> key.startsWith("checksum/") && key.endsWith("-secret"));
        }
    }

    @ParameterizedTest
    @FieldSource("dev.tollgate.deploy.TollgateChart#REGIONS")
    void everyServiceHasADisruptionBudgetAndSpreadsOverZones(String region) {
        Manifests release = TollgateChart.render(region);

        for (String service : SERVICES) {
            Tree deployment = release.one("Deployment", "tollgate-" + service);
            Tree pdb = release.one("PodDisruptionBudget", "tollgate-" + service);
            assertThat(pdb.at("spec", "selector", "matchLabels").map()).as(service)
                    .isEqualTo(deployment.at("spec", "selector", "matchLabels").map());
            assertThat(deployment.items("spec", "template", "spec", "topologySpreadConstraints")).as(service).singleElement()
                    .satisfies(spread -> {
                        assertThat(spread.at("topologyKey").text()).isEqualTo("topology.kubernetes.io/zone");
                        assertThat(spread.at("labelSelector", "matchLabels").map())
                                .isEqualTo(deployment.at("spec", "selector", "matchLabels").map());
                    });
        }
        assertThat(release.one("PodDisruptionBudget", "tollgate-rules-service").at("spec", "maxUnavailable").value()).isEqualTo(1);
        assertThat(release.one("PodDisruptionBudget", "tollgate-budget-rebalancer").at("spec", "maxUnavailable").value()).isEqualTo(1);
    }

    @Test
    void addsTheOperatorsPodAnnotationsLabelsAndPriorityClass() {
        Map<String, Object> extras = Map.of(
                "podAnnotations", Map.of("sidecar.istio.io/inject", "false"),
                "podLabels", Map.of("team", "edge"),
                "priorityClassName", "tollgate-critical");
        Manifests release = TollgateChart.render("eu-west",
                Map.of("checkService", extras, "rulesService", extras, "budgetRebalancer", extras));

        for (String service : SERVICES) {
            Tree template = release.one("Deployment", "tollgate-" + service).at("spec", "template");
            assertThat(template.at("metadata", "annotations").map()).as(service).containsEntry("sidecar.istio.io/inject", "false");
            assertThat(template.at("metadata", "labels").map()).as(service).containsEntry("team", "edge");
            assertThat(template.at("spec", "priorityClassName").text()).as(service).isEqualTo("tollgate-critical");
        }
    }

    @Test
    void logsJsonFromEveryServiceUnlessAskedForText() {
        Manifests json = TollgateChart.render("us-east");
        Manifests text = TollgateChart.render("us-east", Map.of("logging", Map.of("format", "text")));

        for (String service : SERVICES) {
            assertThat(container(json, service).named("LOGGING_STRUCTURED_FORMAT_CONSOLE", "env").at("value").text()).as(service).isEqualTo("ecs");
            assertThat(container(text, service).named("LOGGING_STRUCTURED_FORMAT_CONSOLE", "env").exists()).as(service).isFalse();
        }
        assertThat(TollgateChart.renderFailure("us-east", Map.of("logging", Map.of("format", "json")))).contains("logging/format");
    }

    @Test
    void tracesChecksOnlyWhenAskedWithItsSamplingAndCollector() {
        Tree off = container(TollgateChart.render("us-east"), "check-service");
        Tree on = container(TollgateChart.render("us-east", Map.of("tracing", Map.of("enabled", true, "samplingProbability", 0.05,
                "otlpEndpoint", "http://otel-collector.observability:4318/v1/traces"))), "check-service");

        assertThat(off.named("MANAGEMENT_TRACING_EXPORT_ENABLED", "env").at("value").text()).isEqualTo("false");
        assertThat(on.named("MANAGEMENT_TRACING_EXPORT_ENABLED", "env").at("value").text()).isEqualTo("true");
        assertThat(on.named("MANAGEMENT_TRACING_SAMPLING_PROBABILITY", "env").at("value").text()).isEqualTo("0.05");
        assertThat(on.named("MANAGEMENT_OPENTELEMETRY_TRACING_EXPORT_OTLP_ENDPOINT", "env").at("value").text())
                .isEqualTo("http://otel-collector.observability:4318/v1/traces");
        assertThat(TollgateChart.renderFailure("us-east", Map.of("tracing", Map.of("enabled", true)))).contains("tracing.otlpEndpoint");
    }

    private static Tree container(Manifests release, String service) {
        return release.one("Deployment", "tollgate-" + service).named(service, "spec", "template", "spec", "containers");
    }

    private static Map<String, Object> podAnnotations(Manifests release, String service) {
        return release.one("Deployment", "tollgate-" + service).at("spec", "template", "metadata", "annotations").map();
    }
}
