package dev.tollgate.devstack;

import dev.tollgate.devstack.app.RunningApp;
import dev.tollgate.devstack.demo.AdminClient;
import dev.tollgate.testsupport.redis.Node;
import org.junit.jupiter.api.Test;
import org.springframework.boot.web.server.context.WebServerApplicationContext;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import javax.sql.DataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The stack as the README starts it ({@link DevStack#start}, the entry {@code main} uses), on free ports:
 * a check through a pod, one limit across both pods, an override through rules-service, and a stop that
 * leaves no redis-server or postgres process behind.
 */
class DevStackIT {

    @Test
    void startsChecksAcrossPodsTakesAnOverrideAndStopsLeavingNothingBehind() {
        List<Integer> ports = List.of(Pod.freePort(), Pod.freePort(), Pod.freePort(), Pod.freePort());
        // another IT in this JVM may hold a shared Redis Cluster until the JVM exits: those are not the stack's
        Set<Long> before = ProcessHandle.current().descendants().map(ProcessHandle::pid).collect(Collectors.toSet());
        DevStack stack = DevStack.start("--check-port=" + ports.get(0), "--extra-check-port=" + ports.get(1),
                "--rules-port=" + ports.get(2), "--rebalancer-port=" + ports.get(3));
        List<Long> redisPids;
        int postgresPort;
        Path workDirectory;
        try {
            System.out.printf("dev stack ready in %d ms%n", stack.readyIn().toMillis());
            assertThat(stack.readyIn()).isLessThan(Duration.ofSeconds(60));
            List<RunningApp> apps = stack.checkServices();
            assertThat(apps).extracting(RunningApp::port).containsExactly(ports.get(0), ports.get(1));
            Pod a = Pod.of("pod A", apps.get(0));
            Pod b = Pod.of("pod B", apps.get(1));
            AdminClient admin = stack.admin();

            // each service runs on its own application.yml: the metrics tag comes from there
            assertThat(a.get("/actuator/prometheus")).contains("application=\"check-service\"");
            assertThat(admin.get("/actuator/prometheus").body()).contains("application=\"rules-service\"");
            Pod rebalancer = Pod.of("budget-rebalancer", stack.rebalancer());
            assertThat(rebalancer.get("/actuator/prometheus")).contains("application=\"budget-rebalancer\"");
            assertThat(rebalancer.get("/actuator/health")).contains("\"status\":\"UP\"");
            // and on its own web stack: check-service WebFlux on Netty, the others servlet on Tomcat
            assertThat(webServer(apps.get(0))).isEqualTo("NettyWebServer");
            assertThat(webServer(apps.get(1))).isEqualTo("NettyWebServer");
            assertThat(webServer(stack.rulesService())).isEqualTo("TomcatWebServer");
            assertThat(webServer(stack.rebalancer())).isEqualTo("TomcatWebServer");
            // and with none of the others' auto-configuration: no database in a pod
            assertThat(apps.get(0).context().getBeanNamesForType(DataSource.class)).isEmpty();

            // the design's example check, with no token: check-service took none of rules-service's security
            assertThat(a.check("public-api", "growth-global", "acct_7Q2").get("verdict").asString()).isEqualTo("allow");

            // one Free limit (burst 20) across both pods, as the walkthrough's loop shows it
            Map<String, Integer> allowed = new TreeMap<>();
            Map<String, Integer> denied = new TreeMap<>();
            long loopStarted = System.nanoTime();
            for (int i = 0; i < 30; i++) {
                Pod pod = i % 2 == 0 ? a : b;
                String verdict = pod.verdict("public-api", "free-global", "acct_free_1");
                (verdict.equals("allow") ? allowed : denied).merge(pod.name(), 1, Integer::sum);
            }
            double seconds = (System.nanoTime() - loopStarted) / 1e9;
            System.out.printf("30 Free checks over two pods in %.2f s: allowed %s, denied %s%n", seconds, allowed, denied);
            // the burst of 20, plus what refilled at 10/s while the loop ran, and not one more
            assertThat(allowed.values().stream().mapToInt(Integer::intValue).sum()).isBetween(18, 20 + (int) Math.ceil(seconds * 10));
            assertThat(denied).containsKeys("pod A", "pod B");

            // an override through rules-service lifts the account on both pods
            AdminClient.Response override = admin.post("/v1/overrides", """
                    {"account_id":"acct_free_1","rule_id":"free-global","rate_per_s":100,"burst":200,
                     "expires_at":"%s","reason":"launch week"}""".formatted(Instant.now().plus(Duration.ofDays(7))), null);
            assertThat(override.status()).as(override.body()).isEqualTo(201);
            awaitVerdict(a, "free-global", "acct_free_1", "allow");
            awaitVerdict(b, "free-global", "acct_free_1", "allow");
            AdminClient.Response usage = admin.get("/v1/keys/acct_free_1/usage");
            assertThat(usage.status()).as(usage.body()).isEqualTo(200);
            assertThat(usage.body()).contains("\"overridden\":true").contains("\"region\":\"local\"");

            // what main prints: the token and commands that name the stack's real ports
            String ready = stack.readyText(Clock.systemUTC());
            assertThat(ready).contains("admin token: dev-token")
                    .contains("\"http://127.0.0.1:{" + ports.get(0) + "," + ports.get(1) + "}/v1/ratelimit:check?n=[1-15]\"")
                    .contains("http://127.0.0.1:" + ports.get(2) + "/v1/overrides")
                    .contains("If-Match: \"1\"");

            redisPids = stack.redis().nodes().stream().map(Node::pid).toList();
            postgresPort = stack.postgres().port();
            workDirectory = stack.workDirectory();
            assertThat(redisPids).hasSize(3).allMatch(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
            assertThat(postgresProcesses(postgresPort)).isNotEmpty();
        } finally {
            stack.close();
        }
        assertThat(redisPids).noneMatch(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
        assertThat(ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).filter(p -> !before.contains(p.pid()))
                .map(p -> p.info().command().orElse("")).filter(command -> command.contains("redis")).toList()).isEmpty();
        assertThat(postgresProcesses(postgresPort)).isEmpty();
        assertThat(workDirectory).doesNotExist();
        for (int port : ports) {
            assertThat(canBind(port)).as("port %d is free again", port).isTrue();
        }
    }

    @Test
    void failsFastNamingThePortThatIsTaken() throws IOException {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress("127.0.0.1", 0));
            long started = System.nanoTime();

            assertThatThrownBy(() -> DevStack.start("--check-port=" + taken.getLocalPort(), "--extra-check-port=" + Pod.freePort(),
                    "--rules-port=" + Pod.freePort(), "--rebalancer-port=" + Pod.freePort()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("port " + taken.getLocalPort() + " (check-service #1)")
                    .hasMessageContaining("--base-port");
            // nothing was started: no PostgreSQL, no cluster
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
        }
    }

    private static String webServer(RunningApp app) {
        return ((WebServerApplicationContext) app.context()).getWebServer().getClass().getSimpleName();
    }

    private static void awaitVerdict(Pod pod, String rule, String key, String expected) {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        String last;
        do {
            last = pod.verdict("public-api", rule, key);
            if (last.equals(expected)) {
                return;
            }
            sleep(50);
        } while (System.nanoTime() < deadline);
        throw new AssertionError(pod + " still answers " + last + " for " + key + " on " + rule);
    }

    /** postgres processes serving this port: zonky's postmaster runs detached, so it is no descendant of this JVM. */
    static List<String> postgresProcesses(int port) {
        List<String> found = new ArrayList<>();
        ProcessHandle.allProcesses().filter(ProcessHandle::isAlive).forEach(process -> {
            Optional<String> command = process.info().command();
            Optional<String[]> arguments = process.info().arguments();
            if (command.map(c -> c.endsWith("/postgres")).orElse(false) && arguments.isPresent()
                    && String.join(" ", arguments.get()).matches(".*-p\\s*" + port + "(\\s.*|$)")) {
                found.add(process.pid() + " " + command.get() + " " + String.join(" ", arguments.get()));
            }
        });
        return found;
    }

    private static boolean canBind(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress("127.0.0.1", port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
