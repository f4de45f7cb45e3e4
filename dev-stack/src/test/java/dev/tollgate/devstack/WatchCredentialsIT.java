package dev.tollgate.devstack;

import dev.tollgate.devstack.app.RunningApp;
import dev.tollgate.devstack.app.ServiceLauncher;
import dev.tollgate.devstack.demo.AdminClient;
import dev.tollgate.devstack.issuer.TestIssuer;
import dev.tollgate.testsupport.postgres.Postgres;
import dev.tollgate.testsupport.redis.RedisCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A pod's watch token by OAuth2 client credentials, end to end: a real issuer (Spring Authorization Server,
 * {@link TestIssuer}), rules-service on real PostgreSQL validating its JWTs through the issuer's JWKS
 * (issuer-uri and audiences, as the chart sets them), and a check-service pod that obtains its token with a
 * client id and a secret from a file. Tokens live 8 s and are renewed 3 s before expiry (a watch call answers within
 * 2 s), so renewal, expiry through an outage and a key rotation each happen within the test.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WatchCredentialsIT {

    private static final String DOMAIN = "public-api";
    private static final String PODS = "tollgate-pods";
    private static final Duration TOKEN_LIFETIME = Duration.ofSeconds(8);
    private static final Duration WAIT = Duration.ofSeconds(40);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private static Path work;
    private static TestIssuer issuer;
    private static RunningApp rulesService;
    private static RunningApp podApp;
    private static Pod pod;
    private static AdminClient admin;

    @BeforeAll
    static void start() throws IOException {
        work = Files.createTempDirectory("tollgate-watch-credentials");
        issuer = TestIssuer.start(Pod.freePort(),
                new TestIssuer.Client(PODS, "pod-secret", "ratelimit:watch", TOKEN_LIFETIME),
                new TestIssuer.Client("tollgate-admin", "admin-secret", "ratelimit:admin ratelimit:read", Duration.ofMinutes(30)));
        Postgres postgres = Postgres.shared();
        Map<String, String> jwt = new LinkedHashMap<>();
        // not the dev stack's profile and static token: JWTs from the issuer only, keys from its JWKS
        jwt.put("spring.profiles.active", "default");
        jwt.put("tollgate.security.dev-token", "");
        jwt.put("spring.security.oauth2.resourceserver.jwt.issuer-uri", issuer.issuerUri());
        jwt.put("spring.security.oauth2.resourceserver.jwt.audiences", TestIssuer.AUDIENCE);
        // a watch call answers within 2 s, so a pod polls (and shows its token) every 2 s
        jwt.put("tollgate.watch.timeout", "2s");
        rulesService = ServiceLauncher.rulesService("127.0.0.1", Pod.freePort(), new ServiceLauncher.Database(
                postgres.newDatabase("watch_credentials"), postgres.username(), postgres.password()), RedisCluster.shared().clusterNodes(), "", jwt);
        admin = new AdminClient(rulesService.baseUrl(), adminToken());
        Path secret = work.resolve("client-secret");
        Files.writeString(secret, "pod-secret\n");
        podApp = startPod("check-service #1", secret, work.resolve("pod-1-rules.json"));
        pod = Pod.of("pod", podApp);
    }

    @AfterAll
    static void stop() {
        for (AutoCloseable open : new AutoCloseable[] {podApp, rulesService, issuer}) {
            try {
                if (open != null) {
                    open.close();
                }
            } catch (Exception e) {
                // the next one still closes
            }
        }
    }

    @Test
    @Order(1)
    void obtainsItsTokenAndRenewsItBeforeItExpires() {
        String rule = createAndAwait("obtained");
        int before = issuer.keys().issuedTo(PODS).size();
        assertThat(before).as("the pod obtained a token").isPositive();
        // two more lifetimes: each token is replaced before it expires, so rules-service never refuses one
        awaitTrue("the pod to renew its token twice", () -> issuer.keys().issuedTo(PODS).size() >= before + 2);
        assertThat(pod.metric("tollgate_rules_watch_refused_total")).isZero();
        assertThat(pod.metric("tollgate_rules_token_failures_total")).isZero();
        assertThat(pod.knows(DOMAIN, rule)).isTrue();
        // a token request is an HTTP client call like the polls: observed, with the token endpoint as its uri
        assertThat(pod.get("/actuator/prometheus")).contains("http_client_requests_seconds_count{").contains("uri=\"/oauth2/token\"");
    }

    @Test
    @Order(2)
    void watchesOnTheTokenItHoldsThroughAnIssuerOutageThenKeepsItsRulesAndRecovers() {
        String before = createAndAwait("before-outage");
        double watchErrors = pod.metric("tollgate_rules_watch_errors_total");
        issuer.stop();
        try {
            // the token held is valid for up to 8 s more: changes still reach the pod meanwhile
            String during = createAndAwait("during-outage");
            // then it expires and cannot be renewed: the watch calls fail, counted, the rules stay
            awaitTrue("the pod to fail to renew its token", () -> pod.metric("tollgate_rules_token_failures_total") > 0);
            awaitTrue("the pod's watch calls to fail for want of a token", () -> pod.metric("tollgate_rules_watch_errors_total") > watchErrors);
            assertThat(pod.knows(DOMAIN, before)).isTrue();
            assertThat(pod.knows(DOMAIN, during)).isTrue();
            assertThat(rulesService.context().isActive()).isTrue();
        } finally {
            issuer.start();
        }
        createAndAwait("after-outage");
    }

    @Test
    @Order(3)
    void followsASigningKeyRotationAndOldTokensStayValidUntilTheyExpire() throws Exception {
        createAndAwait("before-rotation");
        String oldToken = token(PODS, "pod-secret", "ratelimit:watch");
        String newKey = issuer.keys().rotate();
        // the pod's next token is signed by a key rules-service has not seen: it fetches the key set again
        awaitTrue("the pod to get a token signed by " + newKey, () -> newKey.equals(last(issuer.keys().issuedTo(PODS))));
        String rule = createAndAwait("after-rotation");
        assertThat(pod.knows(DOMAIN, rule)).isTrue();
        assertThat(pod.metric("tollgate_rules_watch_refused_total")).isZero();
        // a token of the old key is still accepted while that key is published and the token unexpired
        assertThat(watchStatus(oldToken)).isIn(200, 304);
        assertThat(watchStatus(token(PODS, "pod-secret", "ratelimit:watch"))).isIn(200, 304);
    }

    @Test
    @Order(4)
    void aWrongClientSecretIsCountedAndLoggedAndThePodKeepsItsSavedRules() throws Exception {
        String rule = createAndAwait("saved");
        Path saved = work.resolve("pod-1-rules.json");
        awaitTrue("pod 1 to save the snapshot with " + rule, () -> read(saved).contains("\"" + rule + "\""));
        Path copy = work.resolve("pod-2-rules.json");
        Files.copy(saved, copy);
        Path wrong = work.resolve("wrong-secret");
        Files.writeString(wrong, "not-the-secret\n");
        try (RunningApp second = startPod("check-service #2", wrong, copy)) {
            Pod other = Pod.of("pod with a wrong secret", second);
            awaitTrue("the issuer's refusal to be counted", () -> refusals(other) > 0);
            assertThat(other.knows(DOMAIN, rule)).as("its saved rules stay in force").isTrue();
            assertThat(other.metric("tollgate_rules_watch_errors_total")).isPositive();
            assertThat(other.metric("tollgate_rules_watch_refused_total")).as("it never had a token to show rules-service").isZero();

            // the Secret is fixed: the file is read again for the next token request, no restart
            Files.writeString(wrong, "pod-secret\n");
            String next = createAndAwait("fixed-secret");
            awaitTrue("the pod with the fixed secret to receive " + next, () -> other.knows(DOMAIN, next));
        }
    }

    private static String last(java.util.List<String> keyIds) {
        return keyIds.isEmpty() ? null : keyIds.get(keyIds.size() - 1);
    }

    private static double refusals(Pod pod) {
        String scrape = pod.get("/actuator/prometheus");
        return scrape.lines().filter(line -> line.startsWith("tollgate_rules_token_failures_total{") && line.contains("reason=\"refused\""))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).sum();
    }

    private static RunningApp startPod(String name, Path secretFile, Path snapshot) {
        Map<String, String> credentials = new LinkedHashMap<>();
        credentials.put("tollgate.rules.client-credentials.token-uri", issuer.tokenUri());
        credentials.put("tollgate.rules.client-credentials.client-id", PODS);
        credentials.put("tollgate.rules.client-credentials.client-secret-file", secretFile.toString());
        credentials.put("tollgate.rules.client-credentials.clock-skew", "3s");
        credentials.put("tollgate.rules.retry.max", "1s");
        return ServiceLauncher.checkService(name, "127.0.0.1", Pod.freePort(), 0, RedisCluster.shared().clusterNodes(),
                rulesService.baseUrl(), "", snapshot, credentials);
    }

    /** A rule of the test's own, on the pod before the test goes on. */
    private static String createAndAwait(String prefix) {
        String rule = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        AdminClient.Response created = admin.put("/v1/rules/" + rule, "{\"domain\":\"" + DOMAIN + "\",\"match\":{\"plan\":\"growth\"},"
                + "\"algorithm\":\"token_bucket\",\"rate_per_s\":10,\"burst\":10}", null);
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        awaitTrue("the pod to know " + rule, () -> pod.knows(DOMAIN, rule));
        return rule;
    }

    private static String adminToken() {
        return token("tollgate-admin", "admin-secret", "ratelimit:admin ratelimit:read");
    }

    /** A token from the issuer by client credentials, as any client gets one: with the scopes asked for, no more. */
    private static String token(String client, String secret, String scopes) {
        String basic = Base64.getEncoder().encodeToString((client + ":" + secret).getBytes(StandardCharsets.UTF_8));
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(issuer.tokenUri()))
                .header("Authorization", "Basic " + basic)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("grant_type=client_credentials&scope="
                        + java.net.URLEncoder.encode(scopes, StandardCharsets.UTF_8))));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return JsonMapper.builder().build().readTree(response.body()).get("access_token").asString();
    }

    private static int watchStatus(String token) {
        long revision = Long.MAX_VALUE / 2;
        return send(HttpRequest.newBuilder(URI.create(rulesService.baseUrl() + "/v1/watch?since=" + revision))
                .header("Authorization", "Bearer " + token).GET()).statusCode();
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) {
        try {
            return HTTP.send(request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new AssertionError("request failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    private static void awaitTrue(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        AssertionError last = null;
        while (System.nanoTime() < deadline) {
            try {
                if (condition.getAsBoolean()) {
                    return;
                }
            } catch (AssertionError | RuntimeException e) {
                last = e instanceof AssertionError a ? a : new AssertionError(e);
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
        }
        throw new AssertionError("gave up after " + WAIT.toSeconds() + " s waiting for " + what, last);
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            return "";
        }
    }
}
