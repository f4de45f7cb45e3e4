package dev.tollgate.deploy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every tollgate.* property a service declares (its configuration reference in docs/configuration, which
 * each service's ConfigurationReferenceTest holds to its metadata) is a chart value passed to its pods as an
 * environment variable, but for the few the chart decides itself, each named here with why.
 */
class ServiceSettingsChartTest {

    /** Properties the chart does not offer as a value, and why. */
    private static final Map<String, String> DECIDED_BY_THE_CHART = Map.of(
            "tollgate.pods.id", "the pod's host name, its default",
            "tollgate.grpc.address", "every interface, its default: the container port is the chart's",
            "tollgate.grpc.port", "the container port 8090; the Service's port is checkService.service.grpcPort",
            "tollgate.rules.token", "the chart mounts the token as a file (tollgate.rules.token-file), so that a renewed one is read",
            "tollgate.rules.client-credentials.client-secret", "the chart mounts the secret as a file (client-secret-file), so that a rotated one is read",
            "tollgate.security.dev-token", "never outside the dev profile, which the chart never turns on",
            "tollgate.security.issuer", "only with a key file; the chart takes the issuer's URI (rulesService.jwt.issuerUri)",
            "tollgate.forward-auth.domains", "a domain's own header names are a map two levels deep: checkService.env "
                    + "(TOLLGATE_FORWARDAUTH_DOMAINS_<DOMAIN>_PLAN=X-Tier); settings go one level deep");

    /** The variables application.yml maps onto a property whose relaxed name differs (the pods' shared names). */
    private static final Map<String, String> ALIASES = Map.of(
            "tollgate.region.name", "TOLLGATE_REGION",
            "tollgate.usage.region", "TOLLGATE_REGION",
            "tollgate.usage.default-share", "TOLLGATE_REGION_DEFAULT_SHARE");

    @ParameterizedTest
    @CsvSource({"check-service, tollgate-check-service", "rules-service, tollgate-rules-service",
            "budget-rebalancer, tollgate-budget-rebalancer"})
    void passesEveryDocumentedPropertyAsAnEnvironmentVariable(String service, String deployment) {
        // a second release turns on what the region files leave off: a static rules file, the check ports' token, the console's
        // explain, and
        // settings whose default is empty (a check deadline, the feed's and the gRPC port's SSL bundles)
        Set<String> env = new HashSet<>(variables(TollgateChart.render("eu-west"), deployment, service));
        env.addAll(variables(TollgateChart.render("eu-west", Map.of("checkService", Map.of(
                "rules", Map.of("watch", false, "static", "rules: []"),
                "access", Map.of("tokenSecret", "gateway-tokens", "readerTokenSecret", "reader-tokens"))),
                Map.of("checkService", Map.of("settings", Map.of("check", Map.of("deadline", "25ms"),
                        "rules", Map.of("sslBundle", "rules-feed"), "grpc", Map.of("sslBundle", "rls")))),
                // and the console's explain, which asks the pods with a reader's token
                Map.of("rulesService", Map.of("console", Map.of("explain", Map.of("readerTokenSecret", "console-reader-token"))))),
                deployment, service));
        // a region serving envoyproxy/ratelimit's files from a ConfigMap, with forward auth's optional settings
        env.addAll(variables(TollgateChart.render("eu-west", Map.of("checkService", Map.of(
                "rules", Map.of("watch", false, "envoyConfigMap", "ratelimit-config"))),
                Map.of("checkService", Map.of("settings", Map.of("forwardAuth", Map.of("domain", "public-api", "realIpHeader", "X-Real-IP",
                        "headers", Map.of("cost", "X-Cost")))))), deployment, service));
        // and a third has the pods obtain their watch token by client credentials
        env.addAll(variables(TollgateChart.render("eu-west", Map.of("checkService", Map.of("rules", Map.of("tokenSecret", "",
                "clientCredentials", Map.of("enabled", true, "tokenUri", "https://idp.example/token", "clientId", "tollgate-pods",
                        "existingSecret", "idp-client", "audience", "tollgate-rules-service", "sslBundle", "idp"))))), deployment, service));

        List<String> properties = documented(service);
        assertThat(properties).isNotEmpty();
        for (String property : properties) {
            if (DECIDED_BY_THE_CHART.containsKey(property)) {
                continue;
            }
            if (property.equals("tollgate.regions")) {
                assertThat(env).as(property).contains("TOLLGATE_REGIONS_0_NAME", "TOLLGATE_REGIONS_0_DEFAULTSHARE");
                continue;
            }
            assertThat(env).as(property + " in " + service + "'s environment").containsAnyOf(names(property));
        }
    }

    @Test
    void passesAChangedSettingAsItsRelaxedName() {
        Manifests release = TollgateChart.render("eu-west", Map.of(
                "checkService", Map.of("settings", Map.of("optimizations", Map.of("leases", false), "check", Map.of("maxEntries", 16)))),
                Map.of("budgetRebalancer", Map.of("settings", Map.of("rebalancer", Map.of("period", "15s", "maxKeysPerCycle", 40000)))),
                Map.of("rulesService", Map.of("settings", Map.of("watch", Map.of("timeout", "20s")))));

        assertThat(value(release, "tollgate-check-service", "check-service", "TOLLGATE_OPTIMIZATIONS_LEASES")).isEqualTo("false");
        assertThat(value(release, "tollgate-check-service", "check-service", "TOLLGATE_CHECK_MAXENTRIES")).isEqualTo("16");
        assertThat(value(release, "tollgate-check-service", "check-service", "TOLLGATE_CHECK_DEADLINE"))
                .as("empty: the service's default (five store timeouts) holds").isNull();
        assertThat(value(release, "tollgate-budget-rebalancer", "budget-rebalancer", "TOLLGATE_REBALANCER_PERIOD")).isEqualTo("15s");
        assertThat(value(release, "tollgate-budget-rebalancer", "budget-rebalancer", "TOLLGATE_REBALANCER_MAXKEYSPERCYCLE")).isEqualTo("40000");
        assertThat(value(release, "tollgate-budget-rebalancer", "budget-rebalancer", "TOLLGATE_REBALANCER_LOCKKEY"))
                .as("no digits lost to YAML's floats").isEqualTo("8390043843661231205");
        assertThat(value(release, "tollgate-rules-service", "rules-service", "TOLLGATE_WATCH_TIMEOUT")).isEqualTo("20s");
        assertThat(value(release, "tollgate-check-service", "check-service", "TOLLGATE_RULES_RETRY_MAX")).as("a map one level deeper")
                .isEqualTo("10s");
    }

    @Test
    void refusesAMistypedOrMisshapenSetting() {
        assertThat(TollgateChart.renderFailure(List.of(TollgateChart.valuesFile("eu-west"), TollgateChart.writeValues(
                Map.of("budgetRebalancer", Map.of("settings", Map.of("rebalancer", Map.of("period", "10 seconds"))))))))
                .contains("period");
        assertThat(TollgateChart.renderFailure(List.of(TollgateChart.valuesFile("eu-west"), TollgateChart.writeValues(
                Map.of("checkService", Map.of("settings", Map.of("breaker", Map.of("failuresToOpenn", 3))))))))
                .contains("failuresToOpenn");
    }

    /** The variable names Spring Boot binds to the property: relaxed (dashes dropped), the underscored form application.yml uses, an alias. */
    private static String[] names(String property) {
        String relaxed = property.replace("-", "").replace('.', '_').toUpperCase();
        String underscored = property.replace('-', '_').replace('.', '_').toUpperCase();
        return ALIASES.containsKey(property) ? new String[] {relaxed, underscored, ALIASES.get(property)} : new String[] {relaxed, underscored};
    }

    private static List<String> documented(String service) {
        Matcher rows = Pattern.compile("(?m)^\\| `(tollgate\\.[a-z0-9.-]+)`").matcher(RepositoryFiles.read("docs/configuration/" + service + ".md"));
        List<String> properties = new java.util.ArrayList<>();
        while (rows.find()) {
            properties.add(rows.group(1));
        }
        return properties;
    }

    private static List<String> variables(Manifests release, String deployment, String container) {
        return release.one("Deployment", deployment).named(container, "spec", "template", "spec", "containers")
                .items("env").stream().map(e -> e.at("name").text()).toList();
    }

    private static String value(Manifests release, String deployment, String container, String name) {
        Tree variable = release.one("Deployment", deployment).named(container, "spec", "template", "spec", "containers").named(name, "env");
        return variable.exists() ? variable.at("value").text() : null;
    }
}
