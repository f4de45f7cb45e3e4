package dev.tollgate.deploy;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The data path as the chart exposes it: the gRPC port for Envoy, the service token, the NetworkPolicy. */
class DataPathChartTest {

    private static final String NAME = "tollgate-check-service";

    @Test
    void servesEnvoysRateLimitServiceOnItsOwnPort() {
        Manifests release = TollgateChart.render("us-east");
        Tree container = release.one("Deployment", NAME).named("check-service", "spec", "template", "spec", "containers");
        Tree service = release.one("Service", NAME);

        assertThat(container.named("grpc", "ports").at("containerPort").value()).isEqualTo(8090);
        assertThat(service.named("grpc", "spec", "ports").at("port").value()).isEqualTo(8090);
        assertThat(service.named("grpc", "spec", "ports").at("targetPort").text()).isEqualTo("grpc");
        assertThat(service.named("grpc", "spec", "ports").at("appProtocol").text()).isEqualTo("kubernetes.io/h2c");
        assertThat(release.has("NetworkPolicy", NAME)).isFalse();
    }

    /** Envoy's STRICT_DNS cluster and the Java client's key affinity find every ready pod by a headless Service. */
    @Test
    void aHeadlessServiceListsEveryReadyPodForEnvoyAndTheClient() {
        Manifests release = TollgateChart.render("us-east");
        Tree headless = release.one("Service", NAME + "-headless");
        Tree service = release.one("Service", NAME);

        assertThat(headless.at("spec", "clusterIP").text()).isEqualTo("None");
        assertThat(headless.at("spec", "publishNotReadyAddresses").value()).isEqualTo(false);
        assertThat(headless.at("spec", "selector").map()).isEqualTo(service.at("spec", "selector").map());
        assertThat(headless.named("grpc", "spec", "ports").at("port").value()).isEqualTo(8090);
        assertThat(headless.named("grpc", "spec", "ports").at("appProtocol").text()).isEqualTo("kubernetes.io/h2c");
        assertThat(headless.named("http", "spec", "ports").at("port").value()).isEqualTo(8080);
    }

    /** Check ports open to anyone are a choice said out loud, never a default. */
    @Test
    void refusesCheckPortsThatAnswerAnyoneUnlessToldSo() {
        Map<String, Object> noToken = Map.of("checkService", Map.of("access", Map.of("tokenSecret", "")));
        assertThat(TollgateChart.renderFailure("us-east", noToken))
                .contains("checkService.access").contains("tokenSecret").contains("networkPolicy.enabled").contains("allowUnauthenticated");

        assertThat(TollgateChart.render("us-east", noToken, Map.of("checkService", Map.of("networkPolicy", Map.of("enabled", true,
                "gatewayPodSelector", Map.of("app", "istio-ingressgateway")))))).satisfies(release ->
                assertThat(release.has("NetworkPolicy", NAME)).isTrue());
        Tree open = TollgateChart.render("us-east", noToken, Map.of("checkService", Map.of("access", Map.of("allowUnauthenticated", true))))
                .one("Deployment", NAME).named("check-service", "spec", "template", "spec", "containers");
        assertThat(open.named("TOLLGATE_ACCESS_TOKENS", "env").exists()).isFalse();
    }

    @Test
    void takesTheGatewaysServiceTokenFromASecret() {
        Tree container = TollgateChart.render("us-east", Map.of("checkService", Map.of("access", Map.of("tokenSecret", "gateway-token"))))
                .one("Deployment", NAME).named("check-service", "spec", "template", "spec", "containers");

        Tree token = container.named("TOLLGATE_ACCESS_TOKENS", "env");
        assertThat(token.at("valueFrom", "secretKeyRef", "name").text()).isEqualTo("gateway-token");
        assertThat(token.at("valueFrom", "secretKeyRef", "key").text()).isEqualTo("tokens");
        assertThat(token.at("value").exists()).isFalse();
    }

    @Test
    void aNetworkPolicyAdmitsOnlyTheGatewaysToTheCheckPortsAndTheScrapersToTheManagementPort() {
        Map<String, Object> policy = Map.of(
                "enabled", true,
                "gatewayPodSelector", Map.of("app", "istio-ingressgateway"),
                "gatewayNamespaceSelector", Map.of("kubernetes.io/metadata.name", "istio-system"),
                "metricsNamespaceSelector", Map.of("kubernetes.io/metadata.name", "monitoring"));
        Manifests release = TollgateChart.render("eu-west", Map.of("checkService", Map.of("networkPolicy", policy)));
        Tree networkPolicy = release.one("NetworkPolicy", NAME);
        Tree deployment = release.one("Deployment", NAME);

        assertThat(networkPolicy.at("spec", "podSelector", "matchLabels").map())
                .isEqualTo(deployment.at("spec", "selector", "matchLabels").map());
        assertThat(networkPolicy.texts("spec", "policyTypes")).containsExactly("Ingress");
        List<Tree> rules = networkPolicy.items("spec", "ingress");
        assertThat(rules).hasSize(2);

        Tree gateways = rules.get(0);
        Tree from = gateways.items("from").get(0);
        assertThat(from.at("podSelector", "matchLabels").map()).isEqualTo(Map.of("app", "istio-ingressgateway"));
        assertThat(from.at("namespaceSelector", "matchLabels").map()).isEqualTo(Map.of("kubernetes.io/metadata.name", "istio-system"));
        assertThat(gateways.items("ports").stream().map(p -> p.at("port").text())).containsExactly("http", "grpc");

        Tree scrapers = rules.get(1);
        assertThat(scrapers.items("from").get(0).at("namespaceSelector", "matchLabels").map())
                .isEqualTo(Map.of("kubernetes.io/metadata.name", "monitoring"));
        assertThat(scrapers.items("from").get(0).at("podSelector").exists()).isFalse();
        assertThat(scrapers.items("ports").stream().map(p -> p.at("port").text())).containsExactly("management");
    }

    @Test
    void aNetworkPolicyWithoutGatewaysIsRefused() {
        Path enabledAlone = TollgateChart.writeValues(Map.of("checkService", Map.of("networkPolicy", Map.of("enabled", true))));

        assertThat(TollgateChart.renderFailure(List.of(TollgateChart.valuesFile("us-east"), enabledAlone))).contains("names no gateway pods");
    }
}
