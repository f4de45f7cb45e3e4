package dev.tollgate.deploy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** The Grafana dashboard and the Prometheus alerts that ship with the chart. */
class ObservabilityChartTest {

    @ParameterizedTest
    @FieldSource("dev.tollgate.deploy.TollgateChart#REGIONS")
    void alertsOnTheDesignsFourSignalsAndAFrozenRulesFeed(String region) {
        Tree rule = TollgateChart.render(region).one("PrometheusRule", "tollgate-alerts");
        Map<String, Tree> alerts = rule.items("spec", "groups").stream()
                .flatMap(g -> g.items("rules").stream())
                .collect(Collectors.toMap(r -> r.at("alert").text(), r -> r));

        assertThat(rule.at("apiVersion").text()).isEqualTo("monitoring.coreos.com/v1");
        assertThat(alerts).containsOnlyKeys("TollgateFailOpen", "TollgateBreakerOpen", "TollgateStoreLatencyHigh",
                "TollgateShadowDenyRateHigh", "TollgateRulesWatchRefused", "TollgateWatchTokenFailing", "TollgateStoreNotConnected",
                "TollgateLatencySloFastBurn", "TollgateLatencySloSlowBurn", "TollgateServerErrors", "TollgatePodsWithoutRules",
                "TollgateRulesRevisionSpread", "TollgateRulesSnapshotRejected", "TollgateRebalancerInactive",
                "TollgateRebalancerFailing", "TollgateCheckServiceAbsent", "TollgateRulesServiceAbsent", "TollgateRebalancerAbsent",
                "TollgateHotSlot");

        Tree failOpen = alerts.get("TollgateFailOpen");
        assertThat(failOpen.at("expr").text()).contains("rate(tollgate_fail_open_total[1m])").endsWith("> 0");
        assertThat(failOpen.at("for").text()).isEqualTo("1m");

        // 0 closed, 1 open, 2 half-open: anything above 0 is a shard the pods cannot use.
        assertThat(alerts.get("TollgateBreakerOpen").at("expr").text()).contains("tollgate_breaker_state").contains("> 0");
        assertThat(alerts.get("TollgateBreakerOpen").at("labels", "severity").text()).isEqualTo("critical");
        assertThat(alerts.get("TollgateHotSlot").at("expr").text()).contains("tollgate_store_hot_slot_share").endsWith("> 0.5");

        assertThat(squashed(alerts.get("TollgateStoreLatencyHigh").at("expr").text()))
                .startsWith("histogram_quantile(0.99, sum by (namespace, le) (rate(tollgate_store_calls_seconds_bucket[")
                .endsWith("> 0.001");

        assertThat(alerts.get("TollgateShadowDenyRateHigh").at("expr").text())
                .contains("tollgate_shadow_denies_total").contains("tollgate_decisions_total");

        // the counter check-service registers as tollgate.rules.watch.refused (RulesWatchIT reads it)
        assertThat(alerts.get("TollgateRulesWatchRefused").at("expr").text()).contains("rate(tollgate_rules_watch_refused_total[5m])");
        assertThat(alerts.get("TollgateRulesWatchRefused").at("labels", "severity").text()).isEqualTo("critical");

        // the gauge check-service registers as tollgate.store.connected (StoreConnectIT reads it): per pod, 0 until it reaches Redis
        Tree notConnected = alerts.get("TollgateStoreNotConnected");
        assertThat(squashed(notConnected.at("expr").text())).isEqualTo("max by (namespace, pod) (tollgate_store_connected == 0)");
        assertThat(notConnected.at("for").text()).isEqualTo("1m");
        assertThat(notConnected.at("labels", "severity").text()).isEqualTo("critical");

        assertThat(alerts.values()).allSatisfy(a -> {
            assertThat(a.at("labels", "region").text()).isEqualTo(region);
            assertThat(a.at("annotations", "summary").text()).isNotBlank();
            assertThat(a.at("annotations", "description").text()).isNotBlank();
        });
    }

    @Test
    void alertsOnTheLatencySloServerErrorsTheRulesFeedTheRebalancerAndALostScrape() {
        Map<String, Tree> alerts = TollgateChart.render("eu-west").one("PrometheusRule", "tollgate-alerts").items("spec", "groups").stream()
                .flatMap(g -> g.items("rules").stream())
                .collect(Collectors.toMap(r -> r.at("alert").text(), r -> r));

        // burn rate on the histogram's 1 ms edge: share over 1 ms / the 1% budget, over a long and a short window
        String fastBurn = squashed(alerts.get("TollgateLatencySloFastBurn").at("expr").text());
        assertThat(fastBurn).contains("tollgate_checks_seconds_bucket{le=\"0.001\"}[1h]", "tollgate_checks_seconds_bucket{le=\"0.001\"}[5m]",
                "/ 0.01 > 14.4");
        assertThat(alerts.get("TollgateLatencySloFastBurn").at("labels", "severity").text()).isEqualTo("critical");
        assertThat(squashed(alerts.get("TollgateLatencySloSlowBurn").at("expr").text())).contains("[6h]", "[30m]", "> 6");
        assertThat(alerts.get("TollgateServerErrors").at("expr").text()).contains("status=~\"5..\"");
        assertThat(alerts.get("TollgatePodsWithoutRules").at("expr").text()).contains("tollgate_rules_revision < 0");
        assertThat(alerts.get("TollgateRulesRevisionSpread").at("expr").text()).contains("max by (namespace) (tollgate_rules_revision)");
        assertThat(alerts.get("TollgateRulesSnapshotRejected").at("expr").text()).contains("tollgate_rules_snapshots_rejected_total");
        assertThat(alerts.get("TollgateRebalancerFailing").at("expr").text()).contains("outcome=~\"failed|partial\"");
        assertThat(alerts.get("TollgateCheckServiceAbsent").at("expr").text()).isEqualTo("absent(tollgate_store_connected{namespace=\"tollgate\"})");
        assertThat(alerts.get("TollgateRulesServiceAbsent").at("expr").text()).startsWith("absent(tollgate_rules_watch_revision");
        assertThat(alerts.get("TollgateRebalancerAbsent").at("expr").text()).startsWith("absent(tollgate_rebalancer_active");
    }

    @Test
    void leavesOutTheAlertsOfADisabledService() {
        Manifests release = TollgateChart.render("eu-west", Map.of("budgetRebalancer", Map.of("enabled", false)));
        List<String> names = release.one("PrometheusRule", "tollgate-alerts").items("spec", "groups").stream()
                .flatMap(g -> g.items("rules").stream()).map(r -> r.at("alert").text()).toList();

        assertThat(names).noneMatch(name -> name.startsWith("TollgateRebalancer")).contains("TollgateRulesServiceAbsent");
    }

    @Test
    void filtersEveryPanelByARegionVariable() {
        JsonNode dashboard = JsonMapper.builder().build().readTree(RepositoryFiles.read("helm/tollgate/dashboards/tollgate.json"));

        assertThat(dashboard.at("/templating/list").valueStream().map(v -> v.get("name").asString())).contains("region", "namespace");
        assertThat(dashboard.get("panels").valueStream().filter(p -> p.has("targets")).flatMap(p -> p.get("targets").valueStream()))
                .allSatisfy(target -> assertThat(target.get("expr").asString()).contains("region=~\"$region\""));
        assertThat(dashboard.get("panels").valueStream().map(p -> p.get("title").asString()))
                .contains("Local answers per second by rule", "Live pods", "Watch feed", "Rebalancer cycles per second by outcome",
                        "JVM: GC pause time per second", "Rule hits per second by outcome (cost-weighted)");
    }

    @Test
    void shipsNoPrometheusRuleUnlessAsked() {
        // The CRD exists only where the Prometheus Operator runs: the chart's default must not need it.
        Manifests release = TollgateChart.render("us-east", Map.of("prometheusRule", Map.of("enabled", false)));

        assertThat(release.ofKind("PrometheusRule")).isEmpty();
        assertThat(TollgateChart.yaml().<Map<String, Map<String, Object>>>load(RepositoryFiles.read("helm/tollgate/values.yaml"))
                .get("prometheusRule")).containsEntry("enabled", false);
    }

    @Test
    void shipsADashboardGrafanaPicksUpWithEveryMetricOnIt() {
        Tree configMap = TollgateChart.render("us-east").one("ConfigMap", "tollgate-dashboard");

        assertThat(configMap.at("metadata", "labels", "grafana_dashboard").text()).isEqualTo("1");
        JsonNode dashboard = JsonMapper.builder().build().readTree(configMap.at("data", "tollgate.json").text());
        List<String> expressions = dashboard.get("panels").valueStream()
                .filter(panel -> panel.has("targets"))
                .flatMap(panel -> panel.get("targets").valueStream())
                .map(target -> target.get("expr").asString())
                .toList();

        assertThat(dashboard.get("uid").asString()).isEqualTo("tollgate-overview");
        assertThat(String.join("\n", expressions)).contains(
                "sum by (verdict) (rate(tollgate_checks_seconds_count",
                "histogram_quantile(0.99, sum by (le) (rate(tollgate_checks_seconds_bucket",
                "histogram_quantile(0.99, sum by (le, script) (rate(tollgate_store_calls_seconds_bucket",
                "tollgate_fail_open_total",
                "tollgate_breaker_state",
                "tollgate_shadow_denies_total",
                "tollgate_unknown_rules_total",
                "tollgate_rules_revision");
    }

    @Test
    void namesTheBreakerStatesOnTheDashboard() {
        String json = TollgateChart.render("us-east").one("ConfigMap", "tollgate-dashboard").at("data", "tollgate.json").text();
        JsonNode breakerPanel = JsonMapper.builder().build().readTree(json).get("panels").valueStream()
                .filter(p -> p.get("title").asString().startsWith("Breaker state"))
                .findFirst().orElseThrow();
        JsonNode states = breakerPanel.at("/fieldConfig/defaults/mappings/0/options");

        assertThat(states.at("/0/text").asString()).isEqualTo("closed");
        assertThat(states.at("/1/text").asString()).isEqualTo("open");
        assertThat(states.at("/2/text").asString()).isEqualTo("half-open");
    }

    private static String squashed(String expression) {
        return expression.replaceAll("\\s+", " ").trim();
    }
}
