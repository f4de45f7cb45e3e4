package dev.tollgate.check.tls;

import dev.tollgate.check.CheckServiceApplication;
import dev.tollgate.check.WebTestClients;
import dev.tollgate.testsupport.redis.RedisCluster;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.AnnotationConfigUtils;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * A pod that reaches a TLS-only Redis Cluster (redis-server with {@code --tls-port}, {@code --tls-cluster yes})
 * through an SSL bundle, as the chart configures it: the CA is a PEM file in {@code spring.ssl.bundle.pem.redis}
 * with {@code reload-on-update}, no JVM-wide truststore. The pod starts with the wrong CA in the file and
 * cannot connect; the right CA written over it, the same pod connects and checks against the store, with no
 * restart: a CA rotation as the kubelet does it when the Secret changes.
 *
 * <p>The certificates are made with the JDK's keytool. The redis-server is chosen as test-support's clusters choose
 * theirs (the one on PATH, else embedded-redis's, which is built with TLS), so this test needs no more than a JDK
 * either. Skipped where that binary cannot serve TLS; under {@code CI=true} that fails instead, so CI never passes
 * with it unrun.
 */
public class RedisTlsBundleIT {

    private static final Pattern CONNECTED = Pattern.compile("(?m)^tollgate_store_connected\\{[^}]*} (\\S+)$");
    private static final String PASSWORD = "changeit";

    private static Path dir;
    private static Process redis;
    private static int port;
    private static ConfigurableApplicationContext pod;

    @BeforeAll
    static void tlsOnlyClusterOfOneNode() throws Exception {
        dir = Files.createTempDirectory("tollgate-redis-tls");
        makeCertificates();
        port = RedisCluster.reservePorts(1).get(0);
        List<String> command = new ArrayList<>(List.of(redisServer(), "--bind", "127.0.0.1", "--port", "0",
                "--tls-port", String.valueOf(port), "--tls-cert-file", path("server.crt"), "--tls-key-file", path("server.key"),
                "--tls-ca-cert-file", path("right.crt"), "--tls-auth-clients", "no", "--tls-cluster", "yes",
                "--cluster-enabled", "yes", "--cluster-config-file", path("nodes.conf"), "--dir", dir.toString(),
                "--save", "", "--appendonly", "no", "--protected-mode", "no"));
        redis = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
        redis.waitFor(1, TimeUnit.SECONDS);
        if (!redis.isAlive()) {
            String why = command.get(0) + " without TLS support: " + Files.readString(dir.resolve("redis.log"));
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                fail("CI=true, and " + why);
            }
            assumeThat(false).as(why).isTrue();
        }

        // every slot on the one node, over TLS with the right CA
        RedisURI uri = RedisURI.builder().withHost("127.0.0.1").withPort(port).withSsl(true).build();
        RedisClient admin = RedisClient.create(uri);
        admin.setOptions(ClientOptions.builder().sslOptions(SslOptions.builder().jdkSslProvider()
                .trustManager(dir.resolve("right.crt").toFile()).build()).build());
        try (StatefulRedisConnection<String, String> connection = await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                .until(admin::connect, c -> true)) {
            // ADDSLOTS, not ADDSLOTSRANGE: the embedded binary is Redis 6.2, which has no ADDSLOTSRANGE
            connection.sync().clusterAddSlots(IntStream.range(0, RedisCluster.SLOTS).toArray());
            await().atMost(Duration.ofSeconds(30)).until(() -> connection.sync().clusterInfo().contains("cluster_state:ok"));
        } finally {
            admin.shutdown();
        }
    }

    /**
     * {@code tollgate.redis.binary} (a path, or {@code embedded}), else redis-server on PATH, else the binary the
     * embedded-redis jar ships: test-support's order, which its package-private RedisBinary does not expose. Asking
     * the shared cluster's process for its executable does not do: Debian's redis-server is a link that
     * /proc/pid/exe resolves to redis-check-rdb, which then only prints its usage.
     */
    private static String redisServer() throws IOException {
        String configured = System.getProperty("tollgate.redis.binary", "").trim();
        if (!configured.isEmpty() && !configured.equals("embedded")) {
            return configured;
        }
        boolean onPath = Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .anyMatch(directory -> !directory.isEmpty() && Files.isExecutable(Path.of(directory, "redis-server")));
        if (configured.isEmpty() && onPath) {
            return "redis-server";
        }
        // the names at the root of the embedded-redis 1.4.x jar, as RedisBinary knows them
        boolean mac = System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("mac");
        boolean arm = List.of("aarch64", "arm64").contains(System.getProperty("os.arch"));
        String resource = mac ? "redis-server-6.2.6-v5-darwin-" + (arm ? "arm64" : "amd64")
                : arm ? "redis-server-6.2.7-linux-arm64" : "redis-server-6.2.6-v5-linux-amd64";
        Path binary = dir.resolve("redis-server");
        try (InputStream in = RedisTlsBundleIT.class.getClassLoader().getResourceAsStream(resource)) {
            assertThat(in).as("%s in the embedded-redis jar", resource).isNotNull();
            Files.copy(in, binary);
        }
        assertThat(binary.toFile().setExecutable(true, true)).as("%s made executable", binary).isTrue();
        return binary.toString();
    }

    @AfterAll
    static void stop() {
        if (pod != null) {
            pod.close();
        }
        if (redis != null) {
            redis.destroyForcibly();
        }
    }

    @Test
    void connectsThroughTheBundleOnceItReloadsTheRightCaWithoutARestart() throws Exception {
        Path ca = dir.resolve("bundle/ca.crt");
        Files.createDirectories(ca.getParent());
        Files.copy(dir.resolve("wrong.crt"), ca);
        pod = new SpringApplicationBuilder(CheckServiceApplication.class).web(WebApplicationType.REACTIVE).run(
                "--server.port=0",
                "--management.server.port=0",
                "--tollgate.grpc.port=0",
                "--tollgate.rules.file=" + Path.of("src/test/resources/rules-test.yml").toAbsolutePath(),
                "--tollgate.readiness.store-grace=0s",
                "--spring.data.redis.cluster.nodes=127.0.0.1:" + port,
                "--spring.data.redis.ssl.enabled=true",
                "--spring.data.redis.ssl.bundle=redis",
                "--spring.ssl.bundle.pem.redis.truststore.certificate=file:" + ca,
                "--spring.ssl.bundle.pem.redis.reload-on-update=true",
                "--spring.ssl.bundle.watch.file.quiet-period=200ms");
        WebTestClient management = client(pod.getEnvironment().getProperty("local.management.port"));

        // a certificate of a CA the bundle does not hold: no connection, however long it tries
        Thread.sleep(3_000);
        assertThat(connected(management)).as("TLS to a node whose CA is not in the bundle").isZero();

        Path next = dir.resolve("bundle/ca.crt.next");
        Files.copy(dir.resolve("right.crt"), next);
        Files.move(next, ca, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);

        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> assertThat(connected(management)).as("the reloaded CA").isEqualTo(1));
        // the pod was primed before it could connect, so its first store calls after the reload still load the
        // scripts and the connection's code within a check's deadline: enforced within a few checks, not the first
        awaitEnforced(pod, "free-global", "acct_tls");
    }

    /**
     * Spring AOT fixes conditions in the build, which is processed without a Redis TLS bundle; the chart's default names
     * one. A pod started from that build with AOT on, in the chart's shape (a management port of its own, rules from a
     * rules-service, here unreachable, and its saved snapshot), still reaches the TLS-only cluster through its bundle.
     */
    @Test
    void anAotStartedPodReachesTheClusterThroughTheBundleItsOwnConfigurationNames() throws Exception {
        Path snapshot = dir.resolve("aot-snapshot.json");
        Files.writeString(snapshot, """
                {"revision": 1, "rules": [{"id": "aot-tls", "domain": "public-api", "match": {"plan": "aot"},
                  "algorithm": "token_bucket", "rate_per_s": 1, "period_s": 60, "burst": 5, "mode": "enforce",
                  "fail_mode": "open", "max_cost": 1, "version": 1}], "overrides": [], "region_budgets": []}""");
        ConfigurableApplicationContext aot;
        System.setProperty("spring.aot.enabled", "true");
        try {
            // the AOT initializer is looked up by the main class's name, which a test's stack would not give
            aot = new SpringApplicationBuilder(CheckServiceApplication.class).main(CheckServiceApplication.class)
                    .web(WebApplicationType.REACTIVE).run(
                    "--server.port=0",
                    "--management.server.port=0",
                    "--tollgate.grpc.port=0",
                    "--tollgate.rules.service-url=http://127.0.0.1:" + RedisCluster.reservePorts(1).get(0),
                    "--tollgate.rules.snapshot-file=" + snapshot,
                    "--spring.data.redis.cluster.nodes=127.0.0.1:" + port,
                    "--spring.data.redis.ssl.enabled=true",
                    "--spring.data.redis.ssl.bundle=redis",
                    "--spring.ssl.bundle.pem.redis.truststore.certificate=file:" + path("right.crt"));
        } finally {
            System.clearProperty("spring.aot.enabled");
        }
        try {
            // started from the build's AOT-processed beans: no configuration classes parsed at start-up
            assertThat(aot.containsBeanDefinition(AnnotationConfigUtils.CONFIGURATION_ANNOTATION_PROCESSOR_BEAN_NAME)).isFalse();
            assertThat(pod == null || pod.containsBeanDefinition(AnnotationConfigUtils.CONFIGURATION_ANNOTATION_PROCESSOR_BEAN_NAME))
                    .as("a pod started without AOT parses them").isTrue();
            // the customizer that follows the bundle's reloads is there though the build saw no bundle
            assertThat(aot.containsBean("redisTlsFollowsItsBundle")).isTrue();
            WebTestClient management = client(aot.getEnvironment().getProperty("local.management.port"));
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .untilAsserted(() -> assertThat(connected(management)).as("TLS through the bundle").isEqualTo(1));
            // a cold pod's first store call over TLS may pass the design's 5 ms timeout and be answered by the rule's fail
            // mode: enforced within a few checks, not the first, as in the test above
            awaitEnforced(aot, "aot-tls", "acct_aot_tls").jsonPath("$.entries[0].remaining")
                    .value(Integer.class, remaining -> assertThat(remaining).isBetween(0, 4));
        } finally {
            aot.close();
        }
    }

    /** Polls a check of {@code rule} on {@code key} until it is allowed from the store, not a fail mode; answers its body. */
    private static WebTestClient.BodyContentSpec awaitEnforced(ConfigurableApplicationContext context, String rule, String key) {
        String body = "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"" + rule + "\",\"key\":\"" + key + "\"}]}";
        WebTestClient.BodyContentSpec[] answer = new WebTestClient.BodyContentSpec[1];
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200)).untilAsserted(() ->
                answer[0] = client(context.getEnvironment().getProperty("local.server.port")).post().uri("/v1/ratelimit:check")
                        .contentType(MediaType.APPLICATION_JSON).bodyValue(body)
                        .exchange().expectStatus().isOk().expectBody()
                        .jsonPath("$.verdict").isEqualTo("allow")
                        .jsonPath("$.entries[0].fallback").doesNotExist());
        return answer[0];
    }

    private static double connected(WebTestClient management) {
        String scrape = management.get().uri("/actuator/prometheus").exchange().expectStatus().isOk()
                .expectBody(String.class).returnResult().getResponseBody();
        Matcher matcher = CONNECTED.matcher(scrape);
        assertThat(matcher.find()).isTrue();
        return Double.parseDouble(matcher.group(1));
    }

    /** Two CAs, and the node's certificate (for 127.0.0.1) signed by the "right" one, by keytool; the key as PEM for redis-server. */
    private static void makeCertificates() throws Exception {
        for (String ca : List.of("right", "wrong")) {
            keytool("-genkeypair", "-alias", "ca", "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=tollgate-test-" + ca,
                    "-ext", "bc:c", "-validity", "2", "-keystore", path(ca + ".p12"), "-storetype", "PKCS12", "-storepass", PASSWORD);
            keytool("-exportcert", "-alias", "ca", "-keystore", path(ca + ".p12"), "-storepass", PASSWORD, "-rfc", "-file", path(ca + ".crt"));
        }
        keytool("-genkeypair", "-alias", "server", "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=localhost", "-validity", "2",
                "-keystore", path("server.p12"), "-storetype", "PKCS12", "-storepass", PASSWORD);
        keytool("-certreq", "-alias", "server", "-keystore", path("server.p12"), "-storepass", PASSWORD, "-file", path("server.csr"));
        keytool("-gencert", "-alias", "ca", "-keystore", path("right.p12"), "-storepass", PASSWORD, "-infile", path("server.csr"),
                "-outfile", path("server.crt"), "-rfc", "-ext", "san=ip:127.0.0.1,dns:localhost", "-validity", "2");
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (FileInputStream in = new FileInputStream(path("server.p12"))) {
            store.load(in, PASSWORD.toCharArray());
        }
        PrivateKey key = (PrivateKey) store.getKey("server", PASSWORD.toCharArray());
        Files.writeString(dir.resolve("server.key"), "-----BEGIN PRIVATE KEY-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(key.getEncoded()) + "\n-----END PRIVATE KEY-----\n");
    }

    /** The JDK's keytool with {@code arguments}; fails the test with its output unless it succeeds. */
    public static void keytool(String... arguments) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString()));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertThat(process.waitFor()).as("keytool %s: %s", arguments[0], output).isZero();
    }

    private static String path(String name) {
        return dir.resolve(name).toString();
    }

    private static WebTestClient client(String port) {
        return WebTestClients.to(port, Duration.ofSeconds(30));
    }
}
