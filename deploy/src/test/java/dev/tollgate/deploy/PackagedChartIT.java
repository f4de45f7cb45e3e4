package dev.tollgate.deploy;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The chart as a release ships it: {@code helm package} of helm/tollgate into target/chart (what a pipeline pushes to
 * an OCI registry, docs/release.md), then that .tgz rendered as an operator would, with their registry and the
 * digests the release recorded, and without a registry, which the schema refuses.
 */
class PackagedChartIT {

    private static final String DIGEST = "sha256:" + "0123456789abcdef".repeat(4);
    private static Path packaged;

    @BeforeAll
    static void packageTheChart() throws IOException {
        Path destination = Path.of(System.getProperty("tollgate.chart.destination", "target/chart"));
        Files.createDirectories(destination);
        new Helm(RepositoryFiles.path("helm/tollgate")).packageIt().withDestination(destination).call();
        packaged = destination.resolve("tollgate-" + chartVersion() + ".tgz");
    }

    @Test
    void packagesTheChartUnderItsVersion() throws IOException {
        assertThat(packaged).isRegularFile();
        assertThat(Files.size(packaged)).isPositive();
    }

    @Test
    void rendersThePackagedChartWithTheOperatorsRegistryAndPinnedDigests() {
        Manifests release = Manifests.parse(template()
                .set("image.registry", "registry.example.com/platform")
                .set("checkService.image.digest", DIGEST)
                .set("migrations.image.digest", DIGEST)
                .call());

        assertThat(release.one("Deployment", "tollgate-check-service").named("check-service", "spec", "template", "spec", "containers")
                .at("image").text()).isEqualTo("registry.example.com/platform/tollgate/check-service@" + DIGEST);
        assertThat(release.one("Deployment", "tollgate-rules-service").named("rules-service", "spec", "template", "spec", "containers")
                .at("image").text()).as("no digest: the chart's appVersion as the tag")
                .isEqualTo("registry.example.com/platform/tollgate/rules-service:" + appVersion());
    }

    @Test
    void refusesToRenderThePackagedChartWithoutARegistry() {
        assertThatThrownBy(() -> template().set("image.registry", "").call())
                .hasMessageContaining("at '/image/registry': minLength");
    }

    @Test
    void refusesADigestThatIsNotOne() {
        assertThatThrownBy(() -> template().set("checkService.image.digest", "latest").call())
                .hasMessageContaining("'/checkService/image/digest'");
    }

    /** The packaged chart with the region's file, as {@code helm template tollgate-x.tgz -f values-us-east.yaml}. */
    private static TemplateCommand template() {
        return Helm.template(packaged.toString()).withName(TollgateChart.RELEASE).withNamespace(TollgateChart.RELEASE)
                .withValuesFile(TollgateChart.valuesFile("us-east"));
    }

    private static String chartVersion() {
        return chartField("version");
    }

    private static String appVersion() {
        return chartField("appVersion");
    }

    private static String chartField(String field) {
        Matcher m = Pattern.compile("(?m)^" + field + ":\\s*\"?([^\"\\s]+)\"?").matcher(RepositoryFiles.read("helm/tollgate/Chart.yaml"));
        assertThat(m.find()).as("%s in Chart.yaml", field).isTrue();
        return m.group(1);
    }
}
