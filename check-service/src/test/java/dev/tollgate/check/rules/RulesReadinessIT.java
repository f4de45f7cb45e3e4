package dev.tollgate.check.rules;

import dev.tollgate.check.CheckServiceApplication;
import dev.tollgate.check.WebTestClients;
import dev.tollgate.testsupport.redis.RedisCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.web.reactive.server.WebTestClient;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.awaitility.Awaitility.await;

/**
 * Readiness means enforcing: a pod that watches rules-service is not ready, whatever its
 * store, until it holds a snapshot, fetched or saved; liveness stays UP meanwhile.
 */
class RulesReadinessIT {

    private static final String SNAPSHOT = """
            {"revision": 1, "rules": [{"id": "feed-rule", "domain": "public-api", "match": {"plan": "growth"},
              "algorithm": "token_bucket", "rate_per_s": 1, "period_s": 60, "burst": 2, "mode": "enforce",
              "fail_mode": "open", "max_cost": 1, "version": 1}], "overrides": [], "region_budgets": []}""";

    private static Path snapshotDir;

    @BeforeAll
    static void dir() throws IOException {
        snapshotDir = Files.createTempDirectory("tollgate-readiness-it");
    }

    @AfterAll
    static void clean() throws IOException {
        try (var files = Files.walk(snapshotDir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Test
    void isNotReadyWithoutRulesAndReadyOnceASnapshotIsApplied() throws Exception {
        Path snapshotFile = snapshotDir.resolve("fetched.json");
        try (FakeWatchFeed feed = new FakeWatchFeed();
             ConfigurableApplicationContext pod = startPod(feed.url(), snapshotFile)) {
            WebTestClient http = client(pod);
            // the store is reached (the shared cluster), the feed has nothing yet: not ready, still alive
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> http.get().uri("/actuator/health").exchange()
                    .expectBody().jsonPath("$.components.counterStore.details.connected").isEqualTo(true));
            http.get().uri("/actuator/health/liveness").exchange().expectStatus().isOk();
            http.get().uri("/actuator/health/readiness").exchange()
                    .expectStatus().isEqualTo(503)
                    .expectBody()
                    .jsonPath("$.components.enforcing.details.rules").isEqualTo("none yet")
                    .jsonPath("$.components.enforcing.details.waitingFor[0]")
                    .isEqualTo("a rules snapshot from rules-service (none saved or fetched yet)");
            // a check that reaches it anyway is not allowed as if every rule were unknown: the gateway decides
            http.post().uri("/v1/ratelimit:check").contentType(org.springframework.http.MediaType.APPLICATION_JSON)
                    .bodyValue("{\"domain\":\"auth\",\"entries\":[{\"rule\":\"login-ip\",\"key\":\"203.0.113.9\"}]}")
                    .exchange()
                    .expectStatus().isEqualTo(503)
                    .expectBody().jsonPath("$.code").isEqualTo("rules_unavailable");

            feed.publish(1, SNAPSHOT);
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                    http.get().uri("/actuator/health/readiness").exchange().expectStatus().isOk());
            http.get().uri("/actuator/health").exchange().expectBody()
                    .jsonPath("$.components.enforcing.details.rules").isEqualTo("snapshot applied")
                    .jsonPath("$.components.enforcing.details.mode").isEqualTo("enforcing");
        }
    }

    @Test
    void isReadyAtOnceWithASavedSnapshotWhileRulesServiceIsDown() throws Exception {
        Path snapshotFile = snapshotDir.resolve("saved.json");
        Files.writeString(snapshotFile, SNAPSHOT);
        try (ConfigurableApplicationContext pod = startPod("http://127.0.0.1:" + closedPort(), snapshotFile)) {
            client(pod).get().uri("/actuator/health/readiness").exchange().expectStatus().isOk();
        }
    }

    private static ConfigurableApplicationContext startPod(String feedUrl, Path snapshotFile) {
        return new SpringApplicationBuilder(CheckServiceApplication.class)
                .web(WebApplicationType.REACTIVE)
                .run("--server.port=0",
                        "--spring.data.redis.cluster.nodes=" + RedisCluster.shared().clusterNodes(),
                        "--tollgate.redis.command-timeout=2s",
                        "--tollgate.rules.service-url=" + feedUrl,
                        "--tollgate.rules.snapshot-file=" + snapshotFile,
                        "--tollgate.rules.token=watch-token",
                        // to read what an authorized operator sees; shipped: details for authorized callers only
                        "--management.endpoint.health.show-details=always");
    }

    private static WebTestClient client(ConfigurableApplicationContext pod) {
        return WebTestClients.to(pod.getEnvironment().getProperty("local.server.port"));
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
