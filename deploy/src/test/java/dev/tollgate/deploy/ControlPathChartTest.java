package dev.tollgate.deploy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** rules-service, budget-rebalancer and the rules-store migrations as the chart deploys them. */
class ControlPathChartTest {

    private static final Map<String, Object> CHART_MADE_DATABASE_SECRET = Map.of("database", Map.of(
            "existingSecret", "",
            "url", "jdbc:postgresql://rules-db:5432/tollgate",
            "username", "tollgate",
            "password", "db-secret"));

    @Test
    void migratesTheRulesStoreInAHookBeforeInstallsAndUpgrades() {
        Tree job = TollgateChart.renderWithHooks("us-east").one("Job", "tollgate-migrations");

        assertThat(Manifests.hookAnnotations(job))
                .containsEntry("helm.sh/hook", "pre-install,pre-upgrade")
                .containsEntry("helm.sh/hook-weight", "0")
                .containsEntry("helm.sh/hook-delete-policy", "before-hook-creation,hook-succeeded");
        Tree flyway = job.named("flyway", "spec", "template", "spec", "containers");
        assertThat(flyway.at("image").text()).isEqualTo("registry.example.com/tollgate/migrations:0.1.0");
        assertThat(flyway.at("args").value()).isEqualTo(List.of("migrate"));
        assertThat(job.at("spec", "template", "spec", "restartPolicy").text()).isEqualTo("Never");
        for (String[] env : new String[][]{{"FLYWAY_URL", "url"}, {"FLYWAY_USER", "username"}, {"FLYWAY_PASSWORD", "password"}}) {
            Tree ref = flyway.named(env[0], "env").at("valueFrom", "secretKeyRef");
            assertThat(ref.at("name").text()).as(env[0]).isEqualTo("tollgate-database");
            assertThat(ref.at("key").text()).as(env[0]).isEqualTo(env[1]);
        }
    }

    @Test
    void helmItselfTreatsTheMigrationJobAsAHook() {
        // The unmodified chart: Helm leaves hooks out of the release manifest, so the Job is absent there.
        assertThat(TollgateChart.render("us-east").has("Job", "tollgate-migrations")).isFalse();
    }

    @Test
    void createsTheDatabaseSecretAsAnEarlierHookSoTheJobCanReadIt() {
        Manifests release = TollgateChart.renderWithHooks("us-east", CHART_MADE_DATABASE_SECRET);
        Map<String, String> secretHook = Manifests.hookAnnotations(release.one("Secret", "tollgate-database"));
        Map<String, String> jobHook = Manifests.hookAnnotations(release.one("Job", "tollgate-migrations"));

        assertThat(secretHook).containsEntry("helm.sh/hook", jobHook.get("helm.sh/hook"));
        assertThat(Integer.parseInt(secretHook.get("helm.sh/hook-weight")))
                .isLessThan(Integer.parseInt(jobHook.get("helm.sh/hook-weight")));
        assertThat(release.one("Secret", "tollgate-database").at("stringData", "url").text())
                .isEqualTo("jdbc:postgresql://rules-db:5432/tollgate");
    }

    @Test
    void runsRulesServiceWithoutItsOwnMigrationsAndWithJwtsFromTheIssuer() {
        Tree container = TollgateChart.render("us-east").one("Deployment", "tollgate-rules-service")
                .named("rules-service", "spec", "template", "spec", "containers");

        assertThat(container.named("SPRING_FLYWAY_ENABLED", "env").at("value").text()).isEqualTo("false");
        assertThat(container.named("SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_ISSUER_URI", "env").at("value").text())
                .startsWith("https://");
        // the issuer and the audience both, or any token of the identity provider's would do
        assertThat(container.named("SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_AUDIENCES", "env").at("value").text())
                .isEqualTo("tollgate-rules-service");
        assertThat(container.named("SPRING_PROFILES_ACTIVE", "env").exists()).as("never the dev profile").isFalse();
        assertThat(container.named("TOLLGATE_DEV_TOKEN", "env").exists()).isFalse();
        assertThat(container.named("SPRING_DATASOURCE_PASSWORD", "env").at("valueFrom", "secretKeyRef", "name").text())
                .isEqualTo("tollgate-database");
        assertThat(container.at("readinessProbe", "httpGet", "path").text()).isEqualTo("/actuator/health/readiness");
        assertThat(container.named("http", "ports").at("containerPort").value()).isEqualTo(8081);
    }

    @Test
    void theConsolesExplainAsksTheCheckServiceServiceWithAReaderTokenFromASecret() {
        Manifests release = TollgateChart.render("us-east", Map.of(
                "checkService", Map.of("access", Map.of("readerTokenSecret", "reader-tokens")),
                "rulesService", Map.of("console", Map.of("explain", Map.of("readerTokenSecret", "console-reader-token")))));
        Tree container = release.one("Deployment", "tollgate-rules-service").named("rules-service", "spec", "template", "spec", "containers");

        assertThat(container.named("TOLLGATE_CONSOLE_EXPLAIN_URL", "env").at("value").text())
                .as("this release's check-service Service, on its port").isEqualTo("http://tollgate-check-service:8080");
        assertThat(release.has("Service", "tollgate-check-service")).isTrue();
        Tree token = container.named("TOLLGATE_CONSOLE_EXPLAIN_READERTOKEN", "env");
        assertThat(token.at("value").exists()).as("a secret, never a value in the manifest").isFalse();
        assertThat(token.at("valueFrom", "secretKeyRef", "name").text()).isEqualTo("console-reader-token");
        assertThat(token.at("valueFrom", "secretKeyRef", "key").text()).isEqualTo("token");
        assertThat(container.named("TOLLGATE_CONSOLE_EXPLAIN_CONNECTTIMEOUT", "env").at("value").text()).isEqualTo("1s");
        assertThat(container.named("TOLLGATE_CONSOLE_EXPLAIN_READTIMEOUT", "env").at("value").text()).isEqualTo("2s");
    }

    @Test
    void theConsolesExplainIsOffWithoutASecretAndAsksWhereItIsTold() {
        Tree off = TollgateChart.render("us-east").one("Deployment", "tollgate-rules-service")
                .named("rules-service", "spec", "template", "spec", "containers");
        assertThat(off.named("TOLLGATE_CONSOLE_EXPLAIN_URL", "env").exists()).as("the panel says it is not set up").isFalse();
        assertThat(off.named("TOLLGATE_CONSOLE_EXPLAIN_READERTOKEN", "env").exists()).isFalse();

        Tree elsewhere = TollgateChart.render("us-east", Map.of("rulesService", Map.of("console", Map.of("explain", Map.of(
                        "readerTokenSecret", "console-reader-token", "url", "http://check.other-namespace:8080", "readTimeout", "1500ms")))))
                .one("Deployment", "tollgate-rules-service").named("rules-service", "spec", "template", "spec", "containers");
        assertThat(elsewhere.named("TOLLGATE_CONSOLE_EXPLAIN_URL", "env").at("value").text()).isEqualTo("http://check.other-namespace:8080");
        assertThat(elsewhere.named("TOLLGATE_CONSOLE_EXPLAIN_READTIMEOUT", "env").at("value").text()).isEqualTo("1500ms");
    }

    @Test
    void refusesAConsoleTokenThisReleasesPodsWouldRefuse() {
        assertThat(TollgateChart.renderFailure("us-east", Map.of("rulesService", Map.of("console", Map.of("explain",
                Map.of("readerTokenSecret", "console-reader-token"))))))
                .contains("checkService.access.readerTokenSecret is not");
        assertThat(TollgateChart.renderFailure("us-east", Map.of("rulesService", Map.of("console", Map.of("explain",
                Map.of("readerTokenSecret", "console-reader-token", "url", "http://check:8080/?token=x"))))))
                .as("a URL with a query would carry more than the console means to send").contains("url");
    }

    @Test
    void theCheckPortsNetworkPolicyAdmitsRulesServiceToTheHttpPortWhenTheConsoleAsks() {
        Manifests release = TollgateChart.render("eu-west", Map.of(
                "checkService", Map.of("access", Map.of("readerTokenSecret", "reader-tokens"), "networkPolicy", Map.of(
                        "enabled", true, "gatewayPodSelector", Map.of("app", "istio-ingressgateway"))),
                "rulesService", Map.of("console", Map.of("explain", Map.of("readerTokenSecret", "console-reader-token")))));
        List<Tree> rules = release.one("NetworkPolicy", "tollgate-check-service").items("spec", "ingress");
        Tree rulesServicePods = release.one("Deployment", "tollgate-rules-service").at("spec", "selector", "matchLabels");

        Tree console = rules.stream().filter(rule -> rule.items("from").get(0).at("podSelector", "matchLabels").map()
                .equals(rulesServicePods.map())).findFirst().orElseThrow();
        assertThat(console.items("ports").stream().map(p -> p.at("port").text())).containsExactly("http");
        assertThat(console.items("from").get(0).at("namespaceSelector").exists()).as("this release's namespace").isFalse();
    }

    @Test
    void passesSeveralAudiencesAsOneCommaSeparatedValue() {
        Tree container = TollgateChart.render("us-east", Map.of("rulesService", Map.of("jwt", Map.of(
                        "audiences", List.of("tollgate-rules-service", "tollgate-admin-cli")))))
                .one("Deployment", "tollgate-rules-service").named("rules-service", "spec", "template", "spec", "containers");

        assertThat(container.named("SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_AUDIENCES", "env").at("value").text())
                .isEqualTo("tollgate-rules-service,tollgate-admin-cli");
    }

    @ParameterizedTest
    @CsvSource({"us-east, 0.6", "eu-west, 0.25", "ap-south, 0.15"})
    void readsUsageWithTheSameDefaultShareAsTheRegionsPods(String region, String share) {
        Manifests release = TollgateChart.render(region);
        Tree rules = release.one("Deployment", "tollgate-rules-service").named("rules-service", "spec", "template", "spec", "containers");
        Tree pods = release.one("Deployment", "tollgate-check-service").named("check-service", "spec", "template", "spec", "containers");

        assertThat(rules.named("TOLLGATE_REGION_DEFAULT_SHARE", "env").at("value").text()).isEqualTo(share)
                .isEqualTo(pods.named("TOLLGATE_REGION_DEFAULT_SHARE", "env").at("value").text());
    }

    @Test
    void runsTwoRebalancersOfWhichTheAdvisoryLockLetsOneWork() {
        Manifests release = TollgateChart.render("eu-west");
        Tree deployment = release.one("Deployment", "tollgate-budget-rebalancer");
        Tree container = deployment.named("budget-rebalancer", "spec", "template", "spec", "containers");

        assertThat(deployment.at("spec", "replicas").value()).isEqualTo(2);
        assertThat(container.named("SPRING_FLYWAY_ENABLED", "env").at("value").text()).isEqualTo("false");
        assertThat(container.named("TOLLGATE_REGION", "env").at("value").text()).isEqualTo("eu-west");
        assertThat(container.at("readinessProbe", "httpGet", "path").text()).isEqualTo("/actuator/health/readiness");
        assertThat(release.one("Service", "tollgate-budget-rebalancer").items("spec", "ports"))
                .singleElement().satisfies(p -> assertThat(p.at("port").value()).isEqualTo(8082));
        assertThat(RepositoryFiles.read("helm/tollgate/values.yaml")).contains("advisory lock");
    }

    @Test
    void runsEveryContainerAsNonRootOnAReadOnlyFilesystem() {
        Manifests release = TollgateChart.renderWithHooks("ap-south");
        List<Tree> pods = new ArrayList<>();
        release.ofKind("Deployment").forEach(d -> pods.add(d.at("spec", "template", "spec")));
        release.ofKind("Job").forEach(j -> pods.add(j.at("spec", "template", "spec")));

        assertThat(pods).hasSize(4).allSatisfy(pod -> {
            assertThat(pod.at("securityContext", "runAsNonRoot").value()).isEqualTo(true);
            assertThat(pod.at("automountServiceAccountToken").value()).isEqualTo(false);
            List<Tree> containers = new ArrayList<>(pod.items("containers"));
            containers.addAll(pod.items("initContainers"));
            assertThat(containers).allSatisfy(c -> {
                assertThat(c.at("securityContext", "readOnlyRootFilesystem").value()).isEqualTo(true);
                assertThat(c.at("securityContext", "allowPrivilegeEscalation").value()).isEqualTo(false);
            });
        });
    }
}
