package dev.tollgate.check.forwardauth;

import com.sun.net.httpserver.HttpServer;
import dev.tollgate.check.CheckServiceApplication;
import dev.tollgate.check.metrics.CheckMeters;
import dev.tollgate.testsupport.http.RawHttp;
import dev.tollgate.testsupport.redis.Node;
import dev.tollgate.testsupport.redis.RedisCluster;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code examples/nginx/nginx.conf} exactly as shipped, run by a real nginx ({@link Nginx}) in front of a real backend
 * (a JDK HttpServer) and two check-service pods on a Redis Cluster of the test's own (its primaries are frozen here,
 * which the JVM's shared cluster does not allow). When the recipe's ports (nginx 8088, backend 9000, pods 8080 and 8083)
 * are free the file is run as it is; when one is taken, a copy in which only those four ports are replaced, and the test
 * says so on stderr.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NginxForwardAuthIT {

    private static final Path RECIPE = Path.of("..", "examples", "nginx", "nginx.conf").toAbsolutePath().normalize();
    private static final int[] RECIPE_PORTS = {8088, 9000, 8080, 8083};

    private static int[] ports;
    private static Path prefix;
    private static Process nginx;
    private static HttpServer backend;
    private static final Map<String, AtomicInteger> backendHits = new ConcurrentHashMap<>();
    private static RedisCluster cluster;
    private static final List<ConfigurableApplicationContext> pods = new ArrayList<>();
    private static int timedOutLogins;

    @BeforeAll
    static void start() throws Exception {
        Path binary = Nginx.findOrInstall();
        ports = allFree(RECIPE_PORTS) ? RECIPE_PORTS.clone() : freePorts(RECIPE_PORTS.length);
        prefix = Files.createTempDirectory("tollgate-nginx-", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        Path conf = RECIPE;
        if (ports != RECIPE_PORTS && !java.util.Arrays.equals(ports, RECIPE_PORTS)) {
            conf = prefix.resolve("nginx.conf");
            String text = Files.readString(RECIPE);
            for (int i = 0; i < RECIPE_PORTS.length; i++) {
                text = text.replace("127.0.0.1:" + RECIPE_PORTS[i] + ";", "127.0.0.1:" + ports[i] + ";");
            }
            Files.writeString(conf, text);
            System.err.println("NginxForwardAuthIT: a recipe port is taken; running a copy of " + RECIPE + " with ports "
                    + java.util.Arrays.toString(ports) + " for " + java.util.Arrays.toString(RECIPE_PORTS));
        }

        backend = HttpServer.create(new InetSocketAddress("127.0.0.1", ports[1]), 0);
        backend.createContext("/", exchange -> {
            backendHits.computeIfAbsent(exchange.getRequestURI().getRawPath(), path -> new AtomicInteger()).incrementAndGet();
            byte[] body = "backend\n".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        backend.start();

        cluster = RedisCluster.builder().start();
        pods.add(pod("nginx-it-a", ports[2]));
        pods.add(pod("nginx-it-b", ports[3]));

        nginx = new ProcessBuilder(binary.toString(), "-p", prefix + "/", "-c", conf.toString(), "-e", "stderr", "-g", "daemon off;")
                .redirectErrorStream(true).redirectOutput(prefix.resolve("nginx.out").toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!listening(ports[0])) {
            if (!nginx.isAlive() || System.nanoTime() > deadline) {
                throw new IllegalStateException("nginx did not start: " + Files.readString(prefix.resolve("nginx.out")));
            }
            Thread.sleep(50);
        }
    }

    private static ConfigurableApplicationContext pod(String id, int port) {
        return new SpringApplicationBuilder(CheckServiceApplication.class)
                .web(WebApplicationType.REACTIVE)
                .logStartupInfo(false)
                .run("--server.port=" + port, "--server.address=127.0.0.1", "--tollgate.grpc.enabled=false",
                        "--spring.data.redis.cluster.nodes=" + cluster.clusterNodes(),
                        // the dev stack's timing: only a fault makes a call outlast it on a loaded 2-core box
                        "--tollgate.redis.command-timeout=100ms",
                        "--tollgate.rules.file=src/test/resources/rules-demo.yml", "--tollgate.rules.service-url=",
                        "--tollgate.pods.id=" + id, "--tollgate.pods.min=2", "--tollgate.region.name=nginx-it",
                        "--management.metrics.use-global-registry=false", "--logging.level.io.lettuce=ERROR");
    }

    @AfterAll
    static void stop() throws Exception {
        if (nginx != null) {
            nginx.destroy();
            nginx.waitFor(10, TimeUnit.SECONDS);
            System.err.println("NginxForwardAuthIT: nginx's error log:\n" + Files.readString(prefix.resolve("error.log")));
        }
        pods.forEach(ConfigurableApplicationContext::close);
        if (cluster != null) {
            cluster.close();
        }
        if (backend != null) {
            backend.stop(0);
        }
    }

    /** One request through nginx, on its own connection, the target sent as written. */
    private static RawHttp.Answer through(String target, String... headers) throws IOException {
        StringBuilder request = new StringBuilder("GET ").append(target).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        for (int i = 0; i < headers.length; i += 2) {
            request.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
        }
        return RawHttp.exchange(ports[0], request.append("Connection: close\r\n\r\n").toString());
    }

    private static int backendHits(String path) {
        AtomicInteger hits = backendHits.get(path);
        return hits == null ? 0 : hits.get();
    }

    @Test
    @Order(1)
    void aFreeKeyGets200UntilItsBurstIsSpentThen429WithRetryAfterAcrossBothPods() throws Exception {
        long started = System.nanoTime();
        int passed = 0;
        RawHttp.Answer denied = null;
        int sent = 0;
        while (denied == null && sent < 100) {
            RawHttp.Answer answer = through("/v1/labels", "X-Plan", "free", "X-Api-Key", "acct_free_nginx");
            sent++;
            if (answer.status() == 200) {
                passed++;
                assertThat(answer.body()).isEqualTo("backend\n");
                assertThat(answer.header("RateLimit-Policy")).contains("\"free-");
                assertThat(answer.header("RateLimit")).isNotNull();
            } else {
                denied = answer;
            }
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        assertThat(denied).as("a deny within 100 requests").isNotNull();
        assertThat(denied.status()).isEqualTo(429);
        assertThat(Integer.parseInt(denied.header("Retry-After"))).isPositive();
        assertThat(denied.header("RateLimit-Policy")).contains("\"free-global\"");
        assertThat(denied.header("RateLimit")).contains("r=0");
        assertThat(denied.body()).contains("\"code\":\"rate_limited\"");
        // one limit over both pods: the burst (20) and what 10/s refilled meanwhile, not a burst per pod
        assertThat(passed).isBetween(20, 20 + (int) Math.ceil(seconds * 10) + 1);
        assertThat(backendHits("/v1/labels")).isEqualTo(passed);
        for (ConfigurableApplicationContext pod : pods) {
            assertThat(checks(pod)).as("both pods answered checks (nginx's upstream holds both)").isPositive();
        }
        System.err.printf("NginxForwardAuthIT: Free key: %d passed of %d in %.2f s, then 429 Retry-After %s%n",
                passed, sent, seconds, denied.header("Retry-After"));
    }

    @Test
    @Order(3)
    void oddSpellingsOfAPathDoNotDodgeItsRouteRule() throws Exception {
        // Growth's /v1/labels: 5/s, burst 15; spelt as a client may, served by the backend under the same route
        List<String> spellings = List.of("/v1/labels", "//v1/labels", "/v1/./labels", "/v1/%6Cabels", "/x/../v1/labels",
                "/v1/labels/", "/v1/labels?page=2", "/v1//labels", "/V1/../v1/labels", "/v1/lab%65ls/");
        long started = System.nanoTime();
        int passed = 0;
        RawHttp.Answer denied = null;
        for (int i = 0; i < 60 && denied == null; i++) {
            RawHttp.Answer answer = through(spellings.get(i % spellings.size()), "X-Plan", "growth", "X-Api-Key", "acct_growth_nginx");
            if (answer.status() == 200) {
                passed++;
            } else {
                denied = answer;
            }
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        assertThat(denied).isNotNull();
        assertThat(denied.status()).isEqualTo(429);
        assertThat(denied.header("RateLimit-Policy")).contains("\"labels-route\"");
        assertThat(passed).isBetween(15, 15 + (int) Math.ceil(seconds * 5) + 1);

        // login, the auth domain: nginx picks its location by the normalized path, check-service the rule likewise
        // The outage's timed-out spends were on the frozen node's socket and may have run once it was thawed (a timeout
        // cannot tell), so up to that many of the 5 are gone; after the first deny every spelling is denied.
        int logins = 0;
        int denials = 0;
        for (String login : List.of("/login", "//login", "/./login", "/%6Cogin", "/login/", "/login?next=/", "/x/../login")) {
            RawHttp.Answer answer = through(login);
            if (answer.status() != 429) {
                // passed by the limiter; the JDK's HttpServer, the test's backend, reads //login as a host and answers 404
                assertThat(answer.status()).as(login).isIn(200, 404);
                assertThat(denials).as(login + " passed after a deny: a spelling with a counter of its own").isZero();
                logins++;
            } else {
                denials++;
                assertThat(answer.header("RateLimit-Policy")).as(login).contains("\"login-ip\"");
            }
        }
        System.err.println("NginxForwardAuthIT: logins spelt 7 ways: " + logins + " passed, " + denials + " denied; "
                + timedOutLogins + " spends timed out in the outage");
        assertThat(logins).as("login-ip: 5 a minute per client address").isBetween(Math.max(0, 5 - timedOutLogins), 5);
        assertThat(denials).isPositive();
    }

    /**
     * Before any login is spent: every client of the test is 127.0.0.1, and once its login limit is over, the pods'
     * deny cache answers it without asking the store, so the outage would not be what denies it.
     */
    @Test
    @Order(2)
    void duringAShardOutageTheFailClosedRuleDeniesAndTheFailOpenRuleServes() throws Exception {
        // nginx reaches check-service from 127.0.0.1 and puts its client's address (127.0.0.1) in X-Forwarded-For
        Node frozen = cluster.primaryForKey("rl:{127.0.0.1}:login-ip:log");
        String key = null;
        for (int i = 0; key == null; i++) {
            if (cluster.primaryForKey("rl:{acct_outage_" + i + "}:free-global").nodeId().equals(frozen.nodeId())) {
                key = "acct_outage_" + i;
            }
        }
        int loginsBefore = backendHits("/login");
        int apiBefore = backendHits("/v1/exports");
        int sent = 10;
        List<String> loginAnswers = new ArrayList<>();
        List<String> apiAnswers = new ArrayList<>();
        frozen.freeze();
        try {
            for (int i = 0; i < sent; i++) {
                RawHttp.Answer login = through("/login");
                loginAnswers.add(login.status() + " " + login.header("x-tollgate-degraded"));
                RawHttp.Answer api = through("/v1/exports", "X-Plan", "free", "X-Api-Key", key);
                apiAnswers.add(Integer.toString(api.status()));
            }
        } finally {
            frozen.unfreeze();
            awaitShardAnswersOnEveryPod(frozen);
        }
        timedOutLogins = (int) loginAnswers.stream().filter(answer -> answer.endsWith("store_timeout")).count();
        System.err.println("NginxForwardAuthIT: during the outage of " + frozen + ": login " + loginAnswers + ", API " + apiAnswers);
        assertThat(loginAnswers).hasSize(sent).allSatisfy(answer -> assertThat(answer).matches("429 store_(timeout|unavailable)"));
        assertThat(apiAnswers).hasSize(sent).containsOnly("200");
        // every request of the fault is accounted for at the backend: no login reached it, every API request did
        assertThat(backendHits("/login") - loginsBefore).isZero();
        assertThat(backendHits("/v1/exports") - apiBefore).isEqualTo(sent);
    }

    @Test
    @Order(4)
    void withCheckServiceUnreachableTheApiServesAndLoginIsDenied() throws Exception {
        pods.forEach(ConfigurableApplicationContext::close);
        int apiBefore = backendHits("/v1/limiter-down");
        int loginsBefore = backendHits("/login");

        RawHttp.Answer api = through("/v1/limiter-down", "X-Plan", "free", "X-Api-Key", "acct_limiter_down");
        RawHttp.Answer login = through("/login");

        assertThat(api.status()).isEqualTo(200);
        assertThat(api.body()).isEqualTo("backend\n");
        assertThat(login.status()).isEqualTo(429);
        assertThat(backendHits("/v1/limiter-down") - apiBefore).isEqualTo(1);
        assertThat(backendHits("/login") - loginsBefore).isZero();
    }

    /**
     * Until both pods check a login key of the thawed shard with the store again: their breakers stay open for a
     * second after the outage, then a probe closes them, and the next test's logins must be counted, not failed
     * closed. Each attempt asks with a key of its own on that shard, so the probes spend no login of the test's.
     */
    private static void awaitShardAnswersOnEveryPod(Node shard) throws Exception {
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        int candidate = 0;
        for (int pod = 2; pod <= 3; pod++) {
            while (true) {
                String key;
                do {
                    key = "probe_" + candidate++;
                } while (!cluster.primaryForKey("rl:{" + key + "}:login-ip:log").nodeId().equals(shard.nodeId()));
                java.net.http.HttpResponse<String> answer = http.send(java.net.http.HttpRequest.newBuilder(
                                java.net.URI.create("http://127.0.0.1:" + ports[pod] + "/v1/ratelimit:check"))
                        .header("Content-Type", "application/json")
                        .POST(java.net.http.HttpRequest.BodyPublishers.ofString(
                                "{\"domain\":\"auth\",\"entries\":[{\"rule\":\"login-ip\",\"key\":\"" + key + "\"}]}"))
                        .build(), java.net.http.HttpResponse.BodyHandlers.ofString());
                if (answer.statusCode() == 200) {
                    break;
                }
                assertThat(System.nanoTime()).as("pod on " + ports[pod] + " checks the thawed shard again").isLessThan(deadline);
                Thread.sleep(100);
            }
        }
    }

    private static double checks(ConfigurableApplicationContext pod) {
        return pod.getBean(MeterRegistry.class).find(CheckMeters.FORWARD_AUTH_CHECKS).counters().stream().mapToDouble(Counter::count).sum();
    }

    private static boolean listening(int port) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean allFree(int[] candidates) {
        for (int port : candidates) {
            try (ServerSocket socket = new ServerSocket(port, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
                socket.setReuseAddress(true);
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }

    private static int[] freePorts(int count) throws IOException {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] free = new int[count];
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"));
                sockets.add(socket);
                free[i] = socket.getLocalPort();
            }
            return free;
        } finally {
            for (ServerSocket socket : sockets) {
                socket.close();
            }
        }
    }
}
