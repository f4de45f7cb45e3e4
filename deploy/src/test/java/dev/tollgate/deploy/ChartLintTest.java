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
    void refusesToRenderWithoutARegionFile() {
        String error = TollgateChart.renderFailure(List.of());

        assertThat(error).contains("region is not set").contains("values-us-east.yaml");
    }

    @Test
    void refusesToRenderRulesServiceWithoutAJwtIssuer() {
        Map<String, Object> noIssuer = Map.of(
                "region", "eu-west",
                "checkService", Map.of("rules", Map.of("tokenSecret", "tollgate-rules-watch")),
                "redis", Map.of("existingSecret", "tollgate-redis"),
                "database", Map.of("existingSecret", "tollgate-database"));

        String error = TollgateChart.renderFailure(List.of(TollgateChart.writeValues(noIssuer)));

        assertThat(error).contains("rulesService.jwt").contains("issuerUri");
    }
}
