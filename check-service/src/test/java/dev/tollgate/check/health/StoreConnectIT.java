package dev.tollgate.check.health;

import dev.tollgate.check.CheckServiceApplication;
import dev.tollgate.store.RedisCounterStore;
import dev.tollgate.testsupport.redis.RedisCluster;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A check-service pod and its counter store, as issue 11 found them broken: a pod started before its
 * Redis Cluster exists enforces at its next connect attempt once the cluster answers; until then it says so (health,
 * readiness, {@code tollgate_store_connected}) and sizes fallback by its pod floor, not by 1; once
 * ready, a store outage does not take readiness away; a pod that never reaches its store turns ready
 * in fallback after its grace.
 *
 * <p>These pods run with {@code management.endpoint.health.show-details=always} so that the test can
 * read what an authorized operator sees; the shipped configuration shows details to authorized
 * callers only, which {@link #showsAnonymousCallersNoHealthDetailsAndNoMetricsEndpoint} checks.
 */
class StoreConnectIT {

    private static final Logger log = LoggerFactory.getLogger(StoreConnectIT.class);
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();
    private static final Pattern CONNECTED = Pattern.compile("(?m)^tollgate_store_connected\\{[^}]*} (\\S+)$");

    @Test
    void aPodStartedBeforeItsClusterEnforcesAtItsNextConnectAttemptOnceTheClusterAnswers() throws Exception {
        List<Integer> ports = RedisCluster.reservePorts(3);
        String seeds = String.join(",", ports.stream().map(port -> "127.0.0.1:" + port).toList());
        // no fallback start: this pod must stay not ready until it reaches its store, however long its start took (the
        // default 30 s grace could be over by the first probe on a busy machine); the grace is the next test's
        try (ConfigurableApplicationContext pod = startPod(seeds, "--tollgate.pods.min=4", "--tollgate.readiness.store-grace=-1s")) {
            String base = baseUrl(pod);
            // not enforcing: not ready (yet alive), and saying why
            assertThat(get(base, "/actuator/health/readiness").statusCode()).isEqualTo(503);
            assertThat(get(base, "/actuator/health/liveness").statusCode()).isEqualTo(200);
            // generous: a fresh pod's first health call on a loaded 2-core machine has taken seconds
            await().atMost(Duration.ofSeconds(20)).until(() -> health(base).at("/components/counterStore/details/failedAttempts").asInt() >= 1);
            JsonNode store = health(base).at("/components/counterStore");
            assertThat(store.at("/status").asString()).isEqualTo("UP");
            assertThat(store.at("/details/connected").asBoolean()).isFalse();
            assertThat(store.at("/details/notConnectedSince").asString()).isNotBlank();
            assertThat(store.at("/details/lastError").asString()).containsIgnoringCase("refused");
            assertThat(health(base).at("/components/enforcing/details/waitingFor/0").asString()).startsWith("the counter store");
            assertThat(connectedGauge(base)).isEqualTo(0.0);

            // fallback sized by the floor of 4 pods: 200 x 2 / 4 = 100 tokens, not 200 x 2 / 1 = 400
            JsonNode fallback = check(base, "acct_" + UUID.randomUUID());
            assertThat(fallback.at("/entries/0/fallback").asString()).isEqualTo("fail_open");
            assertThat(fallback.at("/entries/0/remaining").asLong()).isEqualTo(99);

            RedisCounterStore counters = pod.getBean(RedisCounterStore.class);
            long starting = System.nanoTime();
            try (RedisCluster cluster = RedisCluster.builder().ports(ports).start()) {
                long answering = System.nanoTime();
                int failedBeforeAnswering = counters.status().failures();
                // its nodes answer PING within milliseconds of starting; slots are served about 2 s later (CLUSTER_WRITABLE_DELAY)
                log.info("the cluster took {} ms to start and form", Duration.ofNanos(answering - starting).toMillis());
                AtomicLong enforcedAt = new AtomicLong();
                String key = "acct_" + UUID.randomUUID();
                // generous: how soon is counted below, in connect attempts; 2 s on a quiet machine, as the log shows
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20)).until(() -> {
                    JsonNode answer = check(base, key);
                    if (answer.at("/entries/0/fallback").isMissingNode()) {
                        enforcedAt.set(System.nanoTime());
                        return true;
                    }
                    return false;
                });
                Duration took = Duration.ofNanos(Math.max(0, enforcedAt.get() - answering));
                int failedAfterAnswering = counters.status().failures() - failedBeforeAnswering;
                log.info("enforcing {} ms and {} failed connect attempts after the cluster was healthy", took.toMillis(), failedAfterAnswering);
                // Counted, not timed: the pod connects at its next attempt once the cluster answers, or at the one after
                // if the attempt under way read the slot map half-formed. Its waits between attempts are capped at
                // 500 ms (ConnectBackoffTest), which is what kept it within 2 s on a quiet machine.
                assertThat(counters.status().connected()).isTrue();
                assertThat(failedAfterAnswering).as("connect attempts that failed after the cluster answered").isLessThanOrEqualTo(1);
                assertThat(get(base, "/actuator/health/readiness").statusCode()).isEqualTo(200);
                assertThat(connectedGauge(base)).isEqualTo(1.0);
                assertThat(health(base).at("/components/enforcing/details/mode").asString()).isEqualTo("enforcing");
            }

            // the cluster is gone again: a store outage must not pull the pod (every pod of the region would go). In order:
            // first the pod answers from fallback, so it has seen the outage; then every readiness probe still says ready
            assertThat(check(base, "acct_" + UUID.randomUUID()).at("/entries/0/fallback").asString()).isEqualTo("fail_open");
            for (int probe = 0; probe < 10; probe++) {
                assertThat(get(base, "/actuator/health/readiness").statusCode()).as("readiness probe %d during the outage", probe + 1).isEqualTo(200);
            }
            assertThat(check(base, "acct_" + UUID.randomUUID()).at("/entries/0/fallback").asString()).isEqualTo("fail_open");
        }
    }

    @Test
    void aPodThatNeverReachesItsStoreTurnsReadyInFallbackAfterItsGrace() throws Exception {
        Duration grace = Duration.ofSeconds(3);
        try (ConfigurableApplicationContext pod = startPod("127.0.0.1:" + closedPort(), "--tollgate.readiness.store-grace=" + grace.toMillis() + "ms")) {
            String base = baseUrl(pod);
            Instant graceOver = Instant.parse(health(base).at("/components/counterStore/details/notConnectedSince").asString()).plus(grace);

            // The grace runs from the pod's first connect attempt, early in its start, which took 5-30 s on a busy 2-core
            // machine: the probes may all come after it. So each answer is checked against the grace by the order of
            // events (one clock, the pod's and ours): refused only to a probe sent before the grace was over, ready
            // only in an answer received after it. Generous: the order is what is checked, not how soon.
            int refused = 0;
            long giveUp = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (true) {
                Instant sent = Instant.now();
                int status = get(base, "/actuator/health/readiness").statusCode();
                Instant received = Instant.now();
                if (status == 200) {
                    assertThat(received).as("ready, not before the grace was over").isAfterOrEqualTo(graceOver);
                    break;
                }
                assertThat(status).isEqualTo(503);
                assertThat(sent).as("not ready after the grace was over").isBefore(graceOver);
                refused++;
                assertThat(System.nanoTime()).as("ready within 30 s").isLessThan(giveUp);
                Thread.sleep(50);
            }
            log.info("ready in fallback after {} probes refused during the {} ms grace", refused, grace.toMillis());
            assertThat(health(base).at("/components/enforcing/details/mode").asString()).startsWith("fallback");
            assertThat(health(base).at("/components/counterStore/details/connected").asBoolean()).isFalse();
            assertThat(connectedGauge(base)).as("the alert's gauge").isEqualTo(0.0);
            assertThat(check(base, "acct_" + UUID.randomUUID()).at("/entries/0/fallback").asString()).isEqualTo("fail_open");
        }
    }

    @Test
    void showsAnonymousCallersNoHealthDetailsAndNoMetricsEndpoint() throws Exception {
        String seeds = RedisCluster.shared().clusterNodes();
        try (ConfigurableApplicationContext pod = startPodAsShipped(seeds)) {
            String base = baseUrl(pod);
            HttpResponse<String> health = get(base, "/actuator/health");
            assertThat(health.statusCode()).isEqualTo(200);
            assertThat(JSON.readTree(health.body()).propertyNames()).contains("status").doesNotContain("components", "details");
            assertThat(get(base, "/actuator/health/readiness").body()).doesNotContain("components", "details");
            assertThat(get(base, "/actuator/metrics").statusCode()).isEqualTo(404);
            assertThat(connectedGauge(base)).isEqualTo(1.0);
        }
    }

    private static ConfigurableApplicationContext startPod(String seeds, String... more) {
        List<String> arguments = new ArrayList<>(List.of("--management.endpoint.health.show-details=always"));
        arguments.addAll(List.of(more));
        return startPodAsShipped(seeds, arguments.toArray(String[]::new));
    }

    private static ConfigurableApplicationContext startPodAsShipped(String seeds, String... more) {
        List<String> arguments = new ArrayList<>(List.of("--server.port=0",
                "--spring.data.redis.cluster.nodes=" + seeds,
                // generous, so that a slow first script on a busy machine is not mistaken for a fallback
                "--tollgate.redis.command-timeout=200ms",
                "--tollgate.rules.file=src/test/resources/rules-test.yml"));
        arguments.addAll(List.of(more));
        return new SpringApplicationBuilder(CheckServiceApplication.class)
                .web(WebApplicationType.REACTIVE)
                .run(arguments.toArray(String[]::new));
    }

    private static String baseUrl(ConfigurableApplicationContext pod) {
        return "http://127.0.0.1:" + pod.getEnvironment().getProperty("local.server.port");
    }

    /**
     * A connection of its own per call: twice in a whole-module run a GET on a reused keep-alive connection
     * was never read by the pod (Reactor Netty 1.3.6 can stop reading a keep-alive connection after a
     * request completes while the previous one's operations are still terminating, reactor-netty#4361);
     * this test is about connecting to Redis, not about keep-alive.
     */
    private static HttpResponse<String> get(String base, String path) throws IOException, InterruptedException {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();
        return http.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(15)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode health(String base) throws IOException, InterruptedException {
        return JSON.readTree(get(base, "/actuator/health").body());
    }

    private static double connectedGauge(String base) throws IOException, InterruptedException {
        Matcher gauge = CONNECTED.matcher(get(base, "/actuator/prometheus").body());
        assertThat(gauge.find()).as("tollgate_store_connected is exported").isTrue();
        return Double.parseDouble(gauge.group(1));
    }

    /** One check of growth-global (burst 200, fail_mode open). */
    private static JsonNode check(String base, String key) throws IOException, InterruptedException {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/v1/ratelimit:check"))
                        .timeout(Duration.ofSeconds(5))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(
                                "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"growth-global\",\"key\":\"" + key + "\"}]}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
