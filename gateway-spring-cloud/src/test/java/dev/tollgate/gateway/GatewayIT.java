package dev.tollgate.gateway;

import dev.tollgate.client.ClientMetrics;
import dev.tollgate.client.testing.CheckPod;
import dev.tollgate.client.testing.HeadersSeen;
import dev.tollgate.client.testing.LoopbackDns;
import dev.tollgate.gateway.app.EmbeddedEngine;
import dev.tollgate.gateway.app.GatewayApp;
import dev.tollgate.gateway.app.NoPodsClient;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import dev.tollgate.testsupport.redis.RedisCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.resources.LoopResources;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real Spring Cloud Gateway applications (routes from {@code gateway-route.yml}, the limiter by auto-configuration) in
 * front of a real backend on loopback, checking with real check-service pods on a real Redis Cluster: 429 with
 * {@code Retry-After} and the RateLimit headers past the limit, and one limit across two gateways on two pods, and
 * across a gateway on the client and one with the engine embedded.
 */
class GatewayIT {

    static final Path RULES = Path.of("src/test/resources/gateway-rules.yml");
    /** Generous for a loaded 2-core box: a check late past this is the fail mode, which these tests must not see. */
    static final String DEADLINE = "3s";

    static final AtomicInteger backendHits = new AtomicInteger();
    static final List<AutoCloseable> started = new ArrayList<>();
    static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    static DisposableServer backend;
    static LoopResources backendLoops;
    static CheckPod podA;
    static CheckPod podB;
    static URI gatewayOnA;
    static URI gatewayOnB;
    static URI gatewayEmbedded;
    static final Map<URI, ConfigurableApplicationContext> gateways = new LinkedHashMap<>();
    static final HeadersSeen traceparentsAtA = new HeadersSeen("traceparent");

    @BeforeAll
    static void start() {
        String region = "gateway-it-" + UUID.randomUUID();
        // the pods share the gateways' classpath: neither Spring Cloud Gateway nor this module's limiter runs in them
        Map<String, String> podOnly = Map.of("spring.cloud.gateway.server.webflux.enabled", "false",
                "spring.cloud.gateway.server.webflux.redis.enabled", "false", "tollgate.gateway.enabled", "false");
        List<String> seeds = RedisCluster.shared().seedUris();
        podA = CheckPod.start("127.0.0.1", 0, seeds, region, "a", RULES, podOnly,
                context -> context.registerBean(HeadersSeen.class, () -> traceparentsAtA));
        started.add(podA);
        podB = CheckPod.start("127.0.0.1", 0, seeds, region, "b", RULES, podOnly);
        started.add(podB);
        backendLoops = LoopResources.create("backend", 1, true);
        backend = HttpServer.create().host("127.0.0.1").port(0).runOn(backendLoops)
                .handle((request, response) -> {
                    backendHits.incrementAndGet();
                    return response.header("X-Backend", "yes").sendString(Mono.just("backend saw " + request.uri()));
                })
                .bindNow();
        gatewayOnA = gateway(Map.of("tollgate.gateway.client.endpoint", podA.base().toString()));
        gatewayOnB = gateway(Map.of("tollgate.gateway.client.endpoint", podB.base().toString()));
        gatewayEmbedded = gateway(Map.of("tollgate.gateway.mode", "embedded", "test.redis-seeds", String.join(",", seeds),
                "test.rules-file", RULES.toAbsolutePath().toString()), EmbeddedEngine.class);
        // the first request through each loads its classes and the pods' scripts: not what the tests time
        for (URI gateway : List.of(gatewayOnA, gatewayOnB, gatewayEmbedded)) {
            assertThat(get(gateway, "/v1/labels/warmup", "acct_warmup").statusCode()).isEqualTo(200);
        }
    }

    /** One gateway application on a free loopback port; closed after the class. */
    static URI gateway(Map<String, String> properties, Class<?>... extra) {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("spring.config.name", "gateway-route");
        all.put("server.address", "127.0.0.1");
        all.put("server.port", "0");
        all.put("spring.main.banner-mode", "off");
        all.put("management.metrics.use-global-registry", "false");
        all.put("backend.url", "http://127.0.0.1:" + backend.port());
        all.put("tollgate.gateway.client.deadline", DEADLINE);
        // /actuator/health/tollgateClient answers only where components are shown
        all.put("management.endpoint.health.show-details", "always");
        // check-service's classes bring grpc-java with its shaded Netty, which Spring Cloud Gateway's JSON-to-gRPC filter
        // takes for grpc-netty (io.grpc.Channel present, io.grpc.netty missing) and fails to start on
        all.put("spring.cloud.gateway.server.webflux.filter.json-to-grpc.enabled", "false");
        // and Spring Data Redis, which would give the gateway Spring Cloud's own Redis limiter (and a template on :6379)
        all.put("spring.cloud.gateway.server.webflux.redis.enabled", "false");
        all.putAll(properties);
        List<Class<?>> sources = new ArrayList<>(List.of(GatewayApp.class));
        sources.addAll(List.of(extra));
        ConfigurableApplicationContext context = new SpringApplicationBuilder(sources.toArray(Class<?>[]::new))
                .web(WebApplicationType.REACTIVE)
                .logStartupInfo(false)
                .initializers(CheckPod::useOwnEventLoops)
                .run(all.entrySet().stream().map(e -> "--" + e.getKey() + "=" + e.getValue()).toArray(String[]::new));
        started.add(context::close);
        URI uri = URI.create("http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port"));
        gateways.put(uri, context);
        return uri;
    }

    @AfterAll
    static void stop() throws Exception {
        for (int i = started.size() - 1; i >= 0; i--) {
            started.get(i).close();
        }
        if (backend != null) {
            backend.disposeNow();
            backendLoops.dispose();
        }
    }

    static HttpResponse<String> get(URI gateway, String path, String account) {
        return get(gateway, path, account, Map.of());
    }

    static HttpResponse<String> get(URI gateway, String path, String account, Map<String, String> headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(gateway.resolve(path)).timeout(Duration.ofSeconds(30));
        if (account != null) {
            request.header("X-Account-Id", account);
        }
        headers.forEach(request::header);
        try {
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    void requestsPastTheLimitAre429WithRetryAfterAndTheRateLimitHeaders() {
        String account = "acct_" + UUID.randomUUID();
        int hitsBefore = backendHits.get();
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> passed = get(gatewayOnA, "/v1/labels/" + i, account);
            assertThat(passed.statusCode()).as("request %d", i + 1).isEqualTo(200);
            assertThat(passed.body()).isEqualTo("backend saw /v1/labels/" + i);
            assertThat(passed.headers().firstValue("RateLimit-Policy")).hasValue("\"gw-account\";q=1;w=60");
            String left = "\"gw-account\";r=" + (4 - i) + ";t=";
            assertThat(passed.headers().firstValue("RateLimit")).hasValueSatisfying(v -> assertThat(v).startsWith(left));
            assertThat(passed.headers().firstValue("Retry-After")).isEmpty();
        }
        HttpResponse<String> refused = get(gatewayOnA, "/v1/labels/6", account);
        System.out.println("the 6th request: " + refused.statusCode() + " " + refused.headers().map());
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.headers().firstValue("Retry-After")).hasValueSatisfying(v -> assertThat(Long.parseLong(v)).isBetween(1L, 60L));
        assertThat(refused.headers().firstValue("RateLimit")).hasValueSatisfying(v -> assertThat(v).startsWith("\"gw-account\";r=0;t="));
        assertThat(refused.headers().firstValue("RateLimit-Policy")).hasValue("\"gw-account\";q=1;w=60");
        assertThat(backendHits.get() - hitsBefore).as("requests that reached the backend").isEqualTo(5);
    }

    @Test
    void twoGatewaysOnTwoPodsEnforceOneLimit() {
        String account = "acct_" + UUID.randomUUID();
        int hitsBefore = backendHits.get();
        int passed = 0;
        for (int i = 0; i < 12; i++) {
            HttpResponse<String> response = get(i % 2 == 0 ? gatewayOnA : gatewayOnB, "/v1/labels/x", account);
            if (response.statusCode() == 200) {
                passed++;
            } else {
                assertThat(response.statusCode()).isEqualTo(429);
                assertThat(response.headers().firstValue("Retry-After")).isPresent();
            }
        }
        assertThat(passed).as("requests passed by the two gateways together").isEqualTo(5);
        assertThat(backendHits.get() - hitsBefore).isEqualTo(5);
    }

    @Test
    void aGatewayOnTheClientAndOneWithTheEngineEmbeddedEnforceOneLimit() {
        String account = "acct_" + UUID.randomUUID();
        int passed = 0;
        for (int i = 0; i < 12; i++) {
            HttpResponse<String> response = get(i % 2 == 0 ? gatewayOnA : gatewayEmbedded, "/v1/labels/y", account);
            passed += response.statusCode() == 200 ? 1 : 0;
            if (response.statusCode() != 200) {
                assertThat(response.statusCode()).isEqualTo(429);
                assertThat(response.headers().firstValue("Retry-After")).isPresent();
                assertThat(response.headers().firstValue("RateLimit")).isPresent();
            }
        }
        assertThat(passed).isEqualTo(5);
    }

    @Test
    void theRouteKeyGivesARouteOneLimitWhateverTheAccount() {
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            statuses.add(get(i % 2 == 0 ? gatewayOnA : gatewayOnB, "/v1/exports/1", "acct_" + UUID.randomUUID()).statusCode());
        }
        assertThat(statuses).containsExactly(200, 200, 200, 429);
    }

    @Test
    void theIpKeyLimitsLoginsPerAddress() {
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            statuses.add(get(gatewayOnB, "/login", null).statusCode());
        }
        assertThat(statuses).containsExactly(200, 200, 200, 200, 200, 429);
    }

    @Test
    void aRequestWithoutAnAccountOrWithAKeyTollgateWouldRefuseIsDeniedAsAnEmptyKey() {
        assertThat(get(gatewayOnA, "/v1/labels/anonymous", null).statusCode()).isEqualTo(403);
        assertThat(get(gatewayOnA, "/v1/labels/long", "x".repeat(300)).statusCode()).isEqualTo(403);
    }

    @Test
    void anUnreachableCheckServiceAnswersByTheGatewaysFailMode() throws Exception {
        int closed;
        try (ServerSocket probe = new ServerSocket(0)) {
            closed = probe.getLocalPort();
        }
        URI failingClosed = gateway(Map.of("tollgate.gateway.client.endpoint", "http://127.0.0.1:" + closed, "tollgate.gateway.fail-mode", "deny"));
        HttpResponse<String> refused = get(failingClosed, "/v1/labels/z", "acct_" + UUID.randomUUID());
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");

        URI failingOpen = gateway(Map.of("tollgate.gateway.client.endpoint", "http://127.0.0.1:" + closed, "tollgate.gateway.fail-mode", "allow"));
        assertThat(get(failingOpen, "/v1/labels/z", "acct_" + UUID.randomUUID()).statusCode()).isEqualTo(200);
    }

    @Test
    void forwardsTheCallersTraceparentOnTheCheck() {
        String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        traceparentsAtA.clear();
        assertThat(get(gatewayOnA, "/v1/labels/traced", "acct_" + UUID.randomUUID(), Map.of("traceparent", traceparent)).statusCode())
                .isEqualTo(200);
        assertThat(get(gatewayOnA, "/v1/labels/untraced", "acct_" + UUID.randomUUID()).statusCode()).isEqualTo(200);
        assertThat(traceparentsAtA.values()).containsExactly(traceparent, HeadersSeen.ABSENT);
    }

    @Test
    void countsItsChecksOnTheApplicationsMeterRegistryAndIsHealthyWithAPod() {
        MeterRegistry meters = gateways.get(gatewayOnA).getBean(MeterRegistry.class);
        double allowedBefore = checks(meters, ClientMetrics.ALLOW, ClientMetrics.NONE);
        double deniedBefore = checks(meters, ClientMetrics.DENY, ClientMetrics.NONE);
        String account = "acct_" + UUID.randomUUID();
        for (int i = 0; i < 6; i++) {
            get(gatewayOnA, "/v1/labels/counted", account);
        }
        assertThat(checks(meters, ClientMetrics.ALLOW, ClientMetrics.NONE) - allowedBefore).isEqualTo(5);
        assertThat(checks(meters, ClientMetrics.DENY, ClientMetrics.NONE) - deniedBefore).isEqualTo(1);
        assertThat(meters.get(ClientMetrics.PODS_KNOWN).gauge().value()).isEqualTo(1);

        HttpResponse<String> health = get(gatewayOnA, "/actuator/health/tollgateClient", null);
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body()).contains("\"status\":\"UP\"");
        assertThat(gateways.get(gatewayEmbedded).getBeanNamesForType(TollgateClientHealthIndicator.class))
                .as("the embedded engine has no client to be down").isEmpty();
    }

    @Test
    void aGatewayThatKnowsNoPodIsDownInItsHealthCountsNoPodsAndFailsOpen() throws Exception {
        try (LoopbackDns dns = new LoopbackDns("tollgate-check-service-headless.test", List.of())) {
            URI gateway = gateway(Map.of("test.dns-port", Integer.toString(dns.address().getPort())), NoPodsClient.class);
            HttpResponse<String> passed = get(gateway, "/v1/labels/nopods", "acct_" + UUID.randomUUID());
            assertThat(passed.statusCode()).as("the fail mode, allow").isEqualTo(200);
            MeterRegistry meters = gateways.get(gateway).getBean(MeterRegistry.class);
            assertThat(checks(meters, ClientMetrics.FALLBACK, "no_pods")).isEqualTo(1);

            HttpResponse<String> health = get(gateway, "/actuator/health/tollgateClient", null);
            System.out.println("a gateway that knows no pod: " + health.statusCode() + " " + health.body());
            assertThat(health.statusCode()).isEqualTo(503);
            assertThat(health.body()).contains("\"status\":\"DOWN\"", "\"knownPods\":0", "tollgate-check-service-headless.test");
            assertThat(get(gateway, "/actuator/health", null).statusCode()).as("the whole health with it").isEqualTo(503);
        }
    }

    static double checks(MeterRegistry meters, String outcome, String reason) {
        Counter counter = meters.find(ClientMetrics.CHECKS).tags(ClientMetrics.OUTCOME, outcome, ClientMetrics.REASON, reason).counter();
        return counter == null ? 0 : counter.count();
    }
}
