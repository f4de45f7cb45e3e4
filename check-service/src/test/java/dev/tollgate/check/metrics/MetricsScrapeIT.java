package dev.tollgate.check.metrics;

import dev.tollgate.check.CheckServiceApplication;
import dev.tollgate.check.WebTestClients;
import dev.tollgate.check.rules.FakeWatchFeed;
import dev.tollgate.testsupport.metrics.SeriesCatalog;
import dev.tollgate.testsupport.redis.RedisCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A pod as the chart runs it, actuator on its own management port, scraped the way Prometheus does after
 * a few checks: the per-rule series (Envoy's hits by outcome, cost-weighted, with the domain; local
 * answers by rule), the common region and version tags, the HTTP SLO buckets, and every series the
 * chart's dashboard and alerts name for check-service (docs/metric-series.txt).
 */
class MetricsScrapeIT {

    private static final String SNAPSHOT = """
            {"revision": 1, "rules": [
              {"id": "scrape-rule", "domain": "public-api", "match": {"plan": "growth"}, "algorithm": "token_bucket",
               "rate_per_s": 1, "period_s": 60, "burst": 2, "mode": "enforce", "fail_mode": "open", "max_cost": 1, "version": 1},
              {"id": "scrape-shadow", "domain": "public-api", "match": {"plan": "growth"}, "algorithm": "token_bucket",
               "rate_per_s": 1, "period_s": 60, "burst": 1, "mode": "shadow", "fail_mode": "open", "max_cost": 1, "version": 1}],
             "overrides": [], "region_budgets": []}""";

    private static FakeWatchFeed feed;
    private static ConfigurableApplicationContext pod;
    private static Path snapshotDir;
    private static String scrape;

    @BeforeAll
    static void checkThenScrape() throws Exception {
        snapshotDir = Files.createTempDirectory("tollgate-scrape-it");
        feed = new FakeWatchFeed();
        feed.publish(1, SNAPSHOT);
        pod = new SpringApplicationBuilder(CheckServiceApplication.class).web(WebApplicationType.REACTIVE).run(
                "--server.port=0",
                "--management.server.port=0",
                "--tollgate.region.name=eu-west",
                "--spring.data.redis.cluster.nodes=" + RedisCluster.shared().clusterNodes(),
                "--tollgate.redis.command-timeout=2s",
                "--tollgate.rules.service-url=" + feed.url(),
                "--tollgate.rules.token=watch-token",
                "--tollgate.rules.snapshot-file=" + snapshotDir.resolve("rules.json"));
        WebTestClient api = client(pod.getEnvironment().getProperty("local.server.port"));
        String key = "acct_" + UUID.randomUUID();
        // the first checks of a cold pod on a loaded machine may take seconds
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().untilAsserted(() -> check(api, "scrape-rule", key)
                .jsonPath("$.entries[0].unknown_rule").doesNotExist());
        check(api, "scrape-rule", key).jsonPath("$.verdict").isEqualTo("allow");
        check(api, "scrape-rule", key).jsonPath("$.verdict").isEqualTo("deny");
        check(api, "scrape-rule", key).jsonPath("$.verdict").isEqualTo("deny");
        check(api, "scrape-shadow", key);
        check(api, "scrape-shadow", key);
        check(api, "no-such-rule", key).jsonPath("$.entries[0].unknown_rule").isEqualTo(true);
        // so that the collector's pause series exists, as it does in any pod that has run a while; the pause
        // reaches Micrometer by a JMX notification on another thread, so the scrape waits for it
        System.gc();
        WebTestClient management = client(pod.getEnvironment().getProperty("local.management.port"));
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            scrape = management.get().uri("/actuator/prometheus")
                    .exchange().expectStatus().isOk().expectBody(String.class).returnResult().getResponseBody();
            assertThat(scrape).contains("jvm_gc_pause_seconds_sum");
        });
    }

    @AfterAll
    static void stop() throws Exception {
        if (pod != null) {
            pod.close();
        }
        if (feed != null) {
            feed.close();
        }
    }

    @Test
    void countsHitsPerRuleByOutcomeWeightedByCostWithTheDomain() {
        assertThat(sample("tollgate_rule_hits_total", "rule=\"scrape-rule\"", "domain=\"public-api\"", "outcome=\"within_limit\""))
                .as("the first of a burst of 2").isEqualTo(1);
        assertThat(sample("tollgate_rule_hits_total", "rule=\"scrape-rule\"", "outcome=\"near_limit\"")).as("the last token").isEqualTo(1);
        assertThat(sample("tollgate_rule_hits_total", "rule=\"scrape-rule\"", "outcome=\"over_limit\"")).isEqualTo(2);
        assertThat(sample("tollgate_rule_hits_total", "rule=\"scrape-shadow\"", "outcome=\"shadow_mode\"")).isEqualTo(1);
    }

    @Test
    void countsLocalAnswersByRule() {
        assertThat(sample("tollgate_local_answers_total", "rule=\"scrape-rule\"", "answer=\"deny_cache\""))
                .as("denies after the bucket ran dry come from the deny cache").isPositive();
    }

    @Test
    void tagsEverySeriesWithTheRegionAndTheVersion() {
        assertThat(scrape).containsPattern("tollgate_store_connected\\{[^}]*region=\"eu-west\"[^}]*version=\"[0-9][^\"]*\"");
    }

    @Test
    void measuresTheCheckOverHttpInBucketsAroundTheOneMillisecondSlo() {
        assertThat(scrape).containsPattern("http_server_requests_seconds_bucket\\{[^}]*uri=\"/v1/ratelimit:check\"[^}]*le=\"0\\.001\"");
        long buckets = scrape.lines().filter(l -> l.startsWith("tollgate_checks_seconds_bucket{") && l.contains("verdict=\"allow\"")).count();
        assertThat(buckets).as("a budget of buckets, not a percentile histogram's ~70").isBetween(10L, 16L);
    }

    @Test
    void timesRedisCommandsPerClusterNodeAndCommandInTheEnginesBuckets() {
        java.util.Set<String> clusterNodes = java.util.Set.of(RedisCluster.shared().clusterNodes().split(","));
        List<String> counts = scrape.lines().filter(l -> l.startsWith("tollgate_redis_commands_seconds_count{")).toList();

        assertThat(counts).as("the checks' scripts").anyMatch(l -> l.contains("command=\"EVALSHA\"") || l.contains("command=\"EVAL\""));
        java.util.regex.Pattern node = java.util.regex.Pattern.compile("node=\"([^\"]+)\"");
        for (String line : counts) {
            java.util.regex.Matcher matcher = node.matcher(line);
            assertThat(matcher.find()).as(line).isTrue();
            assertThat(clusterNodes).as("host:port of a node of the cluster: %s", line).contains(matcher.group(1));
        }
        String evalsha = counts.stream().filter(l -> l.contains("command=\"EVALSHA\"")).findFirst().orElseThrow();
        String nodeTag = evalsha.replaceAll(".*(node=\"[^\"]+\").*", "$1");
        long buckets = scrape.lines().filter(l -> l.startsWith("tollgate_redis_commands_seconds_bucket{"))
                .filter(l -> l.contains("command=\"EVALSHA\"") && l.contains(nodeTag)).count();
        assertThat(buckets).as("the engine's budget of buckets").isBetween(10L, 16L);
    }

    @Test
    void exportsEverySeriesTheDashboardAndAlertsNameForCheckService() {
        assertThat(SeriesCatalog.missingFrom(scrape, "check-service")).isEmpty();
    }

    @Test
    void servesNoActuatorOnTheApiPort() {
        client(pod.getEnvironment().getProperty("local.server.port")).get().uri("/actuator/prometheus").exchange().expectStatus().isNotFound();
    }

    private static double sample(String name, String... labels) {
        return scrape.lines()
                .filter(line -> line.startsWith(name + "{"))
                .filter(line -> java.util.Arrays.stream(labels).allMatch(line::contains))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .sum();
    }

    private static WebTestClient client(String port) {
        return WebTestClients.to(port, Duration.ofSeconds(30));
    }

    private static WebTestClient.BodyContentSpec check(WebTestClient http, String rule, String key) {
        return http.post().uri("/v1/ratelimit:check").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"" + rule + "\",\"key\":\"" + key + "\"}]}")
                .exchange().expectStatus().isOk().expectBody();
    }
}
