package dev.tollgate.deploy;

import com.marcnuri.helm.LintResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ChartLintTest {

    @ParameterizedTest
    @FieldSource("dev.tollgate.deploy.TollgateChart#REGIONS")
    void lintsCleanInStrictModeWithEachRegionsValues(String region) {
        LintResult result = TollgateChart.lint(region);

        assertThat(result.isFailed()).as("helm lint --strict: %s", result.getMessages()).isFalse();
        assertThat(result.getMessages()).noneMatch(m -> m.contains("[ERROR]") || m.contains("[WARNING]"));
    }

    @ParameterizedTest
    @FieldSource("dev.tollgate.deploy.TollgateChart#REGIONS")
    void rendersEveryRegionWithItsOwnRegionLabel(String region) {
        Manifests release = TollgateChart.render(region);

        assertThat(release.kinds()).contains("Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget",
                "ConfigMap", "PrometheusRule");
        assertThat(release.ofKind("Deployment"))
                .allSatisfy(d -> assertThat(d.at("metadata", "labels", "tollgate.dev/region").text()).isEqualTo(region));
    }

    @Test
    void refusesToRenderWithoutARegistry() {
        String error = TollgateChart.renderFailure(List.of());

        // Helm's schema check, before any template: "at '/image/registry': minLength: got 0, want 1"
        assertThat(error).contains("'/image/registry'").contains("minLength");
    }

    @Test
    void refusesToRenderWithoutARegionFile() {
        String error = TollgateChart.renderFailure(List.of(TollgateChart.writeValues(Map.of("image", REGISTRY))));

        assertThat(error).contains("region is not set").contains("values-us-east.yaml");
    }

    @Test
    void refusesToRenderRulesServiceWithoutAJwtIssuer() {
        String error = TollgateChart.renderFailure(List.of(TollgateChart.writeValues(withoutRegionFile(Map.of()))));

        assertThat(error).contains("rulesService.jwt").contains("issuerUri");
    }

    // keys alone check a signature, not who issued the token or for whom
    @Test
    void refusesToRenderRulesServiceWithTheKeySetAlone() {
        Map<String, Object> keysOnly = withoutRegionFile(Map.of(
                "jwkSetUri", "https://login.eu-west.tollgate.example/realms/tollgate/protocol/openid-connect/certs",
                "audiences", List.of("tollgate-rules-service")));

        String error = TollgateChart.renderFailure(List.of(TollgateChart.writeValues(keysOnly)));

        assertThat(error).contains("rulesService.jwt: set issuerUri");
    }

    @Test
    void refusesToRenderRulesServiceWithoutAJwtAudience() {
        Map<String, Object> noAudience = withoutRegionFile(Map.of(
                "issuerUri", "https://login.eu-west.tollgate.example/realms/tollgate",
                "audiences", List.of("")));

        String error = TollgateChart.renderFailure(List.of(TollgateChart.writeValues(noAudience)));

        assertThat(error).contains("rulesService.jwt: set audiences");
    }

    private static final Map<String, Object> REGISTRY = Map.of("registry", "registry.example.com");

    /** The values a region needs besides its file, with {@code jwt} as rulesService.jwt. */
    private static Map<String, Object> withoutRegionFile(Map<String, Object> jwt) {
        return Map.of(
                "region", "eu-west",
                "image", REGISTRY,
                "checkService", Map.of("rules", Map.of("tokenSecret", "tollgate-rules-watch")),
                "redis", Map.of("existingSecret", "tollgate-redis"),
                "database", Map.of("existingSecret", "tollgate-database"),
                "rulesService", Map.of("jwt", jwt));
    }
}
