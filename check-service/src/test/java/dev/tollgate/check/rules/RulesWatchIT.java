package dev.tollgate.check.rules;

import dev.tollgate.check.CheckServiceApplication;
import dev.tollgate.check.WebTestClients;
import dev.tollgate.check.envoy.RlsServer;
import dev.tollgate.testsupport.redis.RedisCluster;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A pod on rules-service's watch feed: applies a good snapshot (its rules and its descriptor mappings),
 * refuses a bad one and keeps serving the last good rules, and after a restart with rules-service down
 * still serves its saved snapshot.
 */
class RulesWatchIT {

    private static final String GOOD = """
            {"revision": 1, "rules": [{"id": "feed-rule", "domain": "public-api", "match": {"plan": "growth"},
              "algorithm": "token_bucket", "rate_per_s": 1, "period_s": 60, "burst": 2, "mode": "enforce",
              "fail_mode": "open", "max_cost": 1, "version": 1}], "overrides": [], "region_budgets": []}""";
    private static final String RATE_ZERO = GOOD.replace("\"revision\": 1", "\"revision\": 2").replace("\"rate_per_s\": 1", "\"rate_per_s\": 0");

    private static Path snapshotDir;

    @BeforeAll
    static void dir() throws IOException {
        snapshotDir = Files.createTempDirectory("tollgate-watch-it");
    }

    @AfterAll
    static void clean() throws IOException {
        try (var files = Files.walk(snapshotDir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Test
    void appliesAGoodSnapshotRefusesABadOneAndSurvivesARestartWithTheFeedDown() throws Exception {
        Path snapshotFile = snapshotDir.resolve("rules.json");
        String key = "acct_" + UUID.randomUUID();
        try (FakeWatchFeed feed = new FakeWatchFeed()) {
            try (ConfigurableApplicationContext pod = startPod(feed.url(), snapshotFile)) {
                WebTestClient http = client(pod);
                // before any snapshot the pod answers no check: it cannot tell a fail-closed rule from an unknown one
                withoutRules(http, key);

                feed.publish(1, GOOD);
                await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                        check(http, key).jsonPath("$.entries[0].unknown_rule").doesNotExist());
                assertThat(feed.lastAuthorization()).isEqualTo("Bearer watch-token");
                assertThat(feed.gzipped()).as("the pod asks for a compressed snapshot and reads it").isTrue();
                check(http, key).jsonPath("$.verdict").isEqualTo("allow");
                check(http, key).jsonPath("$.verdict").isEqualTo("deny");
                assertThat(snapshotFile).exists();

                feed.publish(2, RATE_ZERO);
                MeterRegistry registry = pod.getBean(MeterRegistry.class);
                await().atMost(Duration.ofSeconds(5)).until(() -> rejected(registry, "invalid") >= 1);
                assertThat(registry.get("tollgate.rules.revision").gauge().value()).isEqualTo(1);
                // still the last good rule: known, and its bucket still empty
                check(http, key).jsonPath("$.entries[0].unknown_rule").doesNotExist().jsonPath("$.verdict").isEqualTo("deny");
            }
        }
        // a restart while rules-service is down: the saved snapshot is enforced at once
        try (ConfigurableApplicationContext pod = startPod("http://127.0.0.1:" + closedPort(), snapshotFile)) {
            WebTestClient http = client(pod);
            check(http, key).jsonPath("$.entries[0].unknown_rule").doesNotExist().jsonPath("$.verdict").isEqualTo("deny");
            check(http, "acct_" + UUID.randomUUID()).jsonPath("$.verdict").isEqualTo("allow");
        }
    }

    @Test
    void readsARenewedTokenFromItsFileAndSaysWhenTheFeedRefusesOne() throws Exception {
        Path tokenFile = snapshotDir.resolve("watch-token");
        Files.writeString(tokenFile, "expired-token\n");
        String key = "acct_" + UUID.randomUUID();
        try (FakeWatchFeed feed = new FakeWatchFeed()) {
            feed.requireToken("renewed-token");
            feed.publish(1, GOOD);
            try (ConfigurableApplicationContext pod = startPod(feed.url(), snapshotDir.resolve("rules-token.json"),
                    "--tollgate.rules.token-file=" + tokenFile)) {
                MeterRegistry registry = pod.getBean(MeterRegistry.class);
                await().atMost(Duration.ofSeconds(5)).until(() -> registry.counter("tollgate.rules.watch.refused").count() >= 1);
                assertThat(feed.lastAuthorization()).isEqualTo("Bearer expired-token");
                withoutRules(client(pod), key);

                // whatever renews the token replaces the file; the pod picks it up on its next poll
                Files.writeString(tokenFile, "renewed-token\n");
                await().atMost(Duration.ofSeconds(15)).untilAsserted(() ->
                        check(client(pod), key).jsonPath("$.entries[0].unknown_rule").doesNotExist());
                assertThat(feed.lastAuthorization()).isEqualTo("Bearer renewed-token");
            }
        }
    }

    @Test
    void obtainsItsTokenByClientCredentialsAndAsksForAnotherWhenTheFeedRefusesIt() throws Exception {
        Path secret = snapshotDir.resolve("client-secret");
        Files.writeString(secret, "pod-secret\n");
        String key = "acct_" + UUID.randomUUID();
        try (FakeWatchFeed feed = new FakeWatchFeed(); TokenEndpoint issuer = new TokenEndpoint("pods", "pod-secret", 300)) {
            // the feed takes only the issuer's second token: the first is refused (as one signed by a key rules-service
            // no longer trusts would be), and the pod must ask the issuer for another rather than wait for its expiry
            feed.requireToken("token-2");
            feed.publish(1, GOOD);
            try (ConfigurableApplicationContext pod = startPod(feed.url(), snapshotDir.resolve("rules-client-credentials.json"),
                    "--tollgate.rules.client-credentials.token-uri=" + issuer.tokenUri(),
                    "--tollgate.rules.client-credentials.client-id=pods",
                    "--tollgate.rules.client-credentials.client-secret-file=" + secret)) {
                await().atMost(Duration.ofSeconds(15)).untilAsserted(() ->
                        check(client(pod), key).jsonPath("$.entries[0].unknown_rule").doesNotExist());
                assertThat(feed.lastAuthorization()).isEqualTo("Bearer token-2");
                assertThat(issuer.lastScope()).isEqualTo("ratelimit:watch");
                assertThat(pod.getBean(MeterRegistry.class).counter("tollgate.rules.watch.refused").count()).isEqualTo(1);
            }
        }
    }

    @Test
    void followsTheDescriptorMappingsInTheFeedAndRefusesOneThatNamesNoRule() throws Exception {
        String mapped = GOOD.replace("\"region_budgets\": []", "\"region_budgets\": [], \"descriptor_domains\": [{\"domain\": \"public-api\","
                + " \"version\": 1, \"descriptors\": [{\"key\": \"account\", \"rule\": \"feed-rule\"}]}]");
        String namesNoRule = mapped.replace("\"revision\": 1", "\"revision\": 2").replace("\"rule\": \"feed-rule\"}", "\"rule\": \"gone\"}");
        String account = "acct_" + UUID.randomUUID();
        try (FakeWatchFeed feed = new FakeWatchFeed();
             ConfigurableApplicationContext pod = startPod(feed.url(), snapshotDir.resolve("rules-descriptors.json"))) {
            ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", pod.getBean(RlsServer.class).port()).usePlaintext().build();
            try {
                RateLimitServiceGrpc.RateLimitServiceBlockingStub rls = RateLimitServiceGrpc.newBlockingStub(channel);
                RateLimitRequest request = RateLimitRequest.newBuilder().setDomain("public-api")
                        .addDescriptors(RateLimitDescriptor.newBuilder()
                                .addEntries(RateLimitDescriptor.Entry.newBuilder().setKey("account").setValue(account)))
                        .build();
                feed.publish(1, mapped);
                await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(rls.withDeadlineAfter(5, TimeUnit.SECONDS)
                        .shouldRateLimit(request).getStatuses(0).getCurrentLimit().getName()).isEqualTo("feed-rule"));

                feed.publish(2, namesNoRule);
                MeterRegistry registry = pod.getBean(MeterRegistry.class);
                await().atMost(Duration.ofSeconds(5)).until(() -> rejected(registry, "invalid") >= 1);
                // the last good mapping stays: the second call empties the bucket of 2
                RateLimitResponse second = rls.withDeadlineAfter(5, TimeUnit.SECONDS).shouldRateLimit(request);
                assertThat(second.getStatuses(0).getCurrentLimit().getName()).isEqualTo("feed-rule");
                assertThat(second.getStatuses(0).getLimitRemaining()).isZero();
            } finally {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void refusesATokenAndATokenFileTogether() {
        assertThatThrownBy(() -> startPod("http://127.0.0.1:" + closedPort(), snapshotDir.resolve("rules-both.json"),
                "--tollgate.rules.token=watch-token", "--tollgate.rules.token-file=" + snapshotDir.resolve("watch-token")).close())
                .hasStackTraceContaining("set at most one of tollgate.rules.token, tollgate.rules.token-file and tollgate.rules.client-credentials.*");
    }

    /** A pod on the feed, showing it the token {@code watch-token} unless {@code auth} says otherwise. */
    private static ConfigurableApplicationContext startPod(String feedUrl, Path snapshotFile, String... auth) {
        List<String> arguments = new ArrayList<>(List.of("--server.port=0",
                "--spring.data.redis.cluster.nodes=" + RedisCluster.shared().clusterNodes(),
                "--tollgate.redis.command-timeout=2s",
                "--tollgate.rules.service-url=" + feedUrl,
                "--tollgate.rules.snapshot-file=" + snapshotFile));
        arguments.addAll(auth.length == 0 ? List.of("--tollgate.rules.token=watch-token") : List.of(auth));
        return new SpringApplicationBuilder(CheckServiceApplication.class)
                .web(WebApplicationType.REACTIVE)
                .run(arguments.toArray(String[]::new));
    }

    private static WebTestClient client(ConfigurableApplicationContext pod) {
        String port = pod.getEnvironment().getProperty("local.server.port");
        return WebTestClients.to(port);
    }

    private static WebTestClient.BodyContentSpec check(WebTestClient http, String key) {
        return http.post().uri("/v1/ratelimit:check").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"feed-rule\",\"key\":\"" + key + "\"}]}")
                .exchange().expectStatus().isOk().expectBody();
    }

    private static void withoutRules(WebTestClient http, String key) {
        http.post().uri("/v1/ratelimit:check").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"feed-rule\",\"key\":\"" + key + "\"}]}")
                .exchange().expectStatus().isEqualTo(503).expectBody().jsonPath("$.code").isEqualTo("rules_unavailable");
    }

    private static double rejected(MeterRegistry registry, String reason) {
        return registry.get("tollgate.rules.snapshots.rejected").tag("reason", reason).counter().count();
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
