package dev.tollgate.check;

import dev.tollgate.testsupport.redis.Node;
import dev.tollgate.testsupport.redis.RedisCluster;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The pod as a user starts it: the packaged jar in a JVM of its own, cold. Its first check on every shard is
 * enforced, answered from the store once readiness says so. The command timeout is 25 ms, the 5 ms design
 * timeout's check deadline: what this shows is what the pod does before it says ready (priming the engine
 * against every shard), and until the store's timer ticked every millisecond a 5 ms timeout fired no sooner
 * than that deadline anyway. At a real 5 ms, a 2-core box at a load of 8 misses the first check now and then
 * whatever the pod did, which measures the box, not the pod.
 * A test JVM that has run other tests has the check's classes loaded and linked already, so this could
 * not be seen there: a cold pod's first check on a shard built the shard's breaker and linked the
 * engine's and Lettuce's code within the check's 25 ms deadline, and failed open.
 */
class ColdPodIT {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    private Process pod;
    private Path log;

    @AfterEach
    void stop() throws InterruptedException {
        if (pod != null) {
            pod.destroy();
            if (!pod.waitFor(20, TimeUnit.SECONDS)) {
                pod.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * As a user starts it, with its warm-up (shortened to keep the run short): its ports answer enforced checks while it
     * warms, readiness waits for the warm-up, and nothing of the warm-up reaches the region's Redis or the pod's meters.
     */
    @Test
    void aColdPodWarmsUpBeforeItIsReadyAndItsFirstCheckOnEveryShardIsEnforced() throws Exception {
        RedisCluster cluster = RedisCluster.shared();
        List<Integer> ports = RedisCluster.reservePorts(3);
        start(cluster.clusterNodes(), ports, "--tollgate.warm-up.enabled=true", "--tollgate.warm-up.max-duration=8s");
        String api = "http://127.0.0.1:" + ports.get(0);
        String management = "http://127.0.0.1:" + ports.get(1);
        String readiness = management + "/actuator/health/readiness";
        AtomicBoolean answeredWhileWarming = new AtomicBoolean();
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(50)).until(() -> {
            if (!pod.isAlive() || status(readiness) == 200) {
                return true;
            }
            if (!answeredWhileWarming.get() && Files.readString(log).contains("Started CheckServiceApplication")) {
                HttpResponse<String> check = check(api, "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"free-global\",\"key\":\"warming_"
                        + UUID.randomUUID() + "\"}]}");
                answeredWhileWarming.set(check.statusCode() == 200 && check.body().contains("\"remaining\":19")
                        && !check.body().contains("fallback") && status(readiness) != 200);
            }
            return false;
        });
        assertThat(pod.isAlive()).as("the pod died: %s", tail()).isTrue();
        assertThat(Files.readString(log)).as("the warm-up ran before the pod was ready: %s", tail()).containsPattern("warmed up in [0-9.]+ s");
        assertThat(answeredWhileWarming).as("an enforced check answered while the pod warmed up").isTrue();
        for (Node primary : cluster.primaries()) {
            try (RedisClient redis = RedisClient.create(primary.uri()); StatefulRedisConnection<String, String> connection = redis.connect()) {
                assertThat(connection.sync().keys("*" + "warm-up" + "*")).as("warm-up keys on %s", primary.hostAndPort()).isEmpty();
            }
        }
        HttpResponse<String> scrape = HTTP.send(HttpRequest.newBuilder(URI.create(management + "/actuator/prometheus")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(scrape.body()).contains("tollgate_").doesNotContain("warm-up").doesNotContain("tollgate-warm-up");

        for (Node primary : cluster.primaries()) {
            String key = keyOn(cluster, primary);
            HttpResponse<String> first = check(api, "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"free-global\",\"key\":\"" + key + "\"}]}");

            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(first.body()).as("the first check on %s", primary.hostAndPort())
                    .contains("\"remaining\":19").doesNotContain("fallback");
        }
    }

    private static HttpResponse<String> check(String api, String body) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create(api + "/v1/ratelimit:check"))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * Spring AOT (docs/performance.md, "Spring AOT"): the jar's AOT-processed beans, started as the chart starts a pod
     * (a management port of its own, rules from rules-service, here unreachable, with the pod's saved snapshot). Its
     * management server runs (a build processed without one ran none, silently) and its first check is enforced.
     */
    @Test
    void anAotStartedPodOfTheChartsShapeServesAndEnforces() throws Exception {
        RedisCluster cluster = RedisCluster.shared();
        List<Integer> ports = RedisCluster.reservePorts(4);
        Path snapshot = Files.createTempFile("tollgate-aot-snapshot", ".json");
        Files.writeString(snapshot, """
                {"revision": 1, "rules": [{"id": "aot-rule", "domain": "public-api", "match": {"plan": "aot"},
                  "algorithm": "token_bucket", "rate_per_s": 1, "period_s": 60, "burst": 5, "mode": "enforce",
                  "fail_mode": "open", "max_cost": 1, "version": 1}], "overrides": [], "region_budgets": []}""");
        // the warm-up as the chart has it (on), its longest run shortened: its default minute was most of this test's time
        start(List.of("-Dspring.aot.enabled=true"), cluster.clusterNodes(), ports,
                "--tollgate.rules.service-url=http://127.0.0.1:" + ports.get(3), "--tollgate.rules.snapshot-file=" + snapshot,
                "--tollgate.warm-up.max-duration=5s");
        String readiness = "http://127.0.0.1:" + ports.get(1) + "/actuator/health/readiness";
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(50))
                .until(() -> pod.isAlive() && status(readiness) == 200 || failed());
        assertThat(pod.isAlive()).as("the pod died: %s", tail()).isTrue();
        assertThat(Files.readString(log)).contains("Starting AOT-processed");

        HttpResponse<String> first = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ports.get(0) + "/v1/ratelimit:check"))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"aot-rule\",\"key\":\"aot_" + UUID.randomUUID() + "\"}]}"))
                .build(), HttpResponse.BodyHandlers.ofString());

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).as("%s", tail()).contains("\"remaining\":4").doesNotContain("fallback");
    }

    /** With AOT on, a configuration the build did not choose (rules from a file) stops the pod at once, naming it. */
    @Test
    void anAotStartedPodRefusesAConfigurationItsBuildDidNotChoose() throws Exception {
        List<Integer> ports = RedisCluster.reservePorts(3);
        start(List.of("-Dspring.aot.enabled=true"), RedisCluster.shared().clusterNodes(), ports,
                "--tollgate.rules.file=" + Path.of("src/test/resources/rules-test.yml").toAbsolutePath());

        assertThat(pod.waitFor(60, TimeUnit.SECONDS)).as("the pod stopped").isTrue();
        assertThat(pod.exitValue()).isNotZero();
        assertThat(Files.readString(log)).contains("tollgate.rules.service-url: built for set (rules from rules-service);"
                + " this pod's configuration: empty (rules from the file)");
    }

    private void start(String nodes, List<Integer> ports, String... arguments) throws IOException {
        List<String> all = new ArrayList<>(List.of("--tollgate.rules.file=" + Path.of("src/test/resources/rules-test.yml").toAbsolutePath()));
        all.addAll(List.of(arguments));
        if (all.stream().noneMatch(argument -> argument.startsWith("--tollgate.warm-up.enabled="))) {
            // what these tests time is the start to the first enforced check, which the warm-up (on by default) does not hold up
            all.add("--tollgate.warm-up.enabled=false");
        }
        start(List.of(), nodes, ports, all.toArray(String[]::new));
    }

    private void start(List<String> jvmFlags, String nodes, List<Integer> ports, String... rules) throws IOException {
        Path jar;
        try (Stream<Path> built = Files.list(Path.of("target"))) {
            jar = built.filter(p -> p.getFileName().toString().matches("tollgate-check-service-.*\\.jar")).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no packaged jar in target/: run mvn package first"));
        }
        log = Files.createTempFile("tollgate-cold-pod", ".log");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m"));
        command.addAll(jvmFlags);
        command.addAll(List.of("-jar", jar.toString(),
                "--server.port=" + ports.get(0), "--management.server.port=" + ports.get(1), "--tollgate.grpc.port=" + ports.get(2),
                "--spring.data.redis.cluster.nodes=" + nodes, "--tollgate.redis.command-timeout=25ms"));
        command.addAll(List.of(rules));
        pod = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /** A key no test has used whose bucket lives on this primary. */
    private static String keyOn(RedisCluster cluster, Node primary) {
        while (true) {
            String key = "cold_" + UUID.randomUUID();
            if (cluster.primaryForKey("rl:{" + key + "}:free-global").hostAndPort().equals(primary.hostAndPort())) {
                return key;
            }
        }
    }

    private static int status(String url) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private boolean failed() {
        return !pod.isAlive();
    }

    private String tail() throws IOException {
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }
}
