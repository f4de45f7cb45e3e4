package dev.tollgate.gateway;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.tollgate.client.testing.CheckPod;
import dev.tollgate.gateway.app.EmbeddedEngine;
import dev.tollgate.gateway.app.GatewayApp;
import dev.tollgate.gateway.app.VerifiedJwts;
import dev.tollgate.gateway.app.WithoutEngine;
import dev.tollgate.testsupport.redis.RedisCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.io.DefaultResourceLoader;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.resources.LoopResources;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Per-plan limits on one route by configuration alone: real gateways on docs/gateways.md's {@code application.yml}
 * ({@code gateway-example.yml}), one on the client (with tollgate-limiter, the counter store and Lettuce hidden from its
 * class path) and one with the engine embedded, and one that reads the plan and account from JWTs Spring Security
 * verified, in front of a real backend, checking with a real check-service pod on a real Redis Cluster.
 */
class AttributesIT {

    static final Path RULES = Path.of("src/test/resources/gateway-plan-rules.yml");
    static final String JWT_SECRET = "attributes-it-" + UUID.randomUUID() + "-at-least-256-bits";

    static final AtomicInteger backendHits = new AtomicInteger();
    static final List<AutoCloseable> started = new ArrayList<>();
    static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    static DisposableServer backend;
    static LoopResources backendLoops;
    static CheckPod pod;
    static ConfigurableApplicationContext onClient;
    static URI gatewayOnClient;
    static URI gatewayEmbedded;
    static URI gatewayWithJwts;

    @BeforeAll
    static void start() {
        String region = "attributes-it-" + UUID.randomUUID();
        Map<String, String> podOnly = Map.of("spring.cloud.gateway.server.webflux.enabled", "false",
                "spring.cloud.gateway.server.webflux.redis.enabled", "false", "tollgate.gateway.enabled", "false");
        List<String> seeds = RedisCluster.shared().seedUris();
        pod = CheckPod.start("127.0.0.1", 0, seeds, region, "a", RULES, podOnly);
        started.add(pod);
        backendLoops = LoopResources.create("backend", 1, true);
        backend = HttpServer.create().host("127.0.0.1").port(0).runOn(backendLoops)
                .handle((request, response) -> {
                    backendHits.incrementAndGet();
                    return response.sendString(Mono.just("backend saw " + request.uri()));
                })
                .bindNow();
        // docs/gateways.md's file as it is; only where check-service is differs (a loopback pod, not the cluster's DNS)
        Map<String, String> onThePod = Map.of("tollgate.gateway.client.dns-service", "", "tollgate.gateway.client.endpoint", pod.base().toString());
        onClient = gateway("gateway-example", onThePod, new WithoutEngine(AttributesIT.class.getClassLoader()), GatewayApp.class);
        gatewayOnClient = uri(onClient);
        gatewayEmbedded = uri(gateway("gateway-example", Map.of("tollgate.gateway.mode", "embedded", "test.redis-seeds", String.join(",", seeds),
                "test.rules-file", RULES.toAbsolutePath().toString()), null, GatewayApp.class, EmbeddedEngine.class));
        Map<String, String> jwts = new LinkedHashMap<>(onThePod);
        jwts.put("test.jwt-secret", JWT_SECRET);
        gatewayWithJwts = uri(gateway("gateway-jwt-route", jwts, null, GatewayApp.class, VerifiedJwts.class));
        // the first request through each loads its classes and the pod's scripts: no rule covers plan "none"
        for (URI gateway : List.of(gatewayOnClient, gatewayEmbedded)) {
            assertThat(get(gateway, "/v1/labels/warmup", Map.of("X-Plan", "none", "X-Api-Key", "warmup")).statusCode()).isEqualTo(200);
        }
        assertThat(get(gatewayWithJwts, "/v1/labels/warmup", bearer(jwt(JWT_SECRET, "warmup", "none"))).statusCode()).isEqualTo(200);
    }

    /**
     * One gateway application on a free loopback port, its routes and settings from {@code configName}.yml; with a class
     * loader, the application's classes and auto-configurations are loaded through it. Closed after the class.
     */
    static ConfigurableApplicationContext gateway(String configName, Map<String, String> properties, ClassLoader loader, Class<?>... sources) {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("spring.config.name", configName);
        all.put("server.address", "127.0.0.1");
        all.put("server.port", "0");
        all.put("spring.main.banner-mode", "off");
        all.put("management.metrics.use-global-registry", "false");
        all.put("LABELS_BACKEND_URL", "http://127.0.0.1:" + backend.port());
        all.put("tollgate.gateway.client.deadline", GatewayIT.DEADLINE);
        all.put("spring.cloud.gateway.server.webflux.filter.json-to-grpc.enabled", "false");
        all.put("spring.cloud.gateway.server.webflux.redis.enabled", "false");
        all.putAll(properties);
        String[] args = all.entrySet().stream().map(e -> "--" + e.getKey() + "=" + e.getValue()).toArray(String[]::new);
        Thread thread = Thread.currentThread();
        ClassLoader before = thread.getContextClassLoader();
        try {
            SpringApplicationBuilder application = new SpringApplicationBuilder().web(WebApplicationType.REACTIVE).logStartupInfo(false)
                    .initializers(CheckPod::useOwnEventLoops);
            if (loader == null) {
                application.sources(sources);
            } else {
                thread.setContextClassLoader(loader);
                Class<?>[] loaded = new Class<?>[sources.length];
                for (int i = 0; i < sources.length; i++) {
                    loaded[i] = loader.loadClass(sources[i].getName());
                }
                application.resourceLoader(new DefaultResourceLoader(loader)).sources(loaded);
            }
            ConfigurableApplicationContext context = application.run(args);
            started.add(context::close);
            return context;
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        } finally {
            thread.setContextClassLoader(before);
        }
    }

    static URI uri(ConfigurableApplicationContext context) {
        return URI.create("http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port"));
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

    static HttpResponse<String> get(URI gateway, String path, Map<String, String> headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(gateway.resolve(path)).timeout(Duration.ofSeconds(30));
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

    static Map<String, String> plan(String plan, String apiKey) {
        return Map.of("X-Plan", plan, "X-Api-Key", apiKey);
    }

    /** {@code burst} requests pass, each advertising the plan's rule; the next is a 429 with its wait, and never reaches the backend. */
    static void passesItsBurstThen429(URI gateway, Map<String, String> headers, String rule, int burst) {
        int hitsBefore = backendHits.get();
        for (int i = 0; i < burst; i++) {
            HttpResponse<String> passed = get(gateway, "/v1/labels/" + i, headers);
            assertThat(passed.statusCode()).as("%s: request %d of %d", rule, i + 1, burst).isEqualTo(200);
            assertThat(passed.headers().firstValue("RateLimit-Policy")).hasValue("\"" + rule + "\";q=1;w=60");
            String left = "\"" + rule + "\";r=" + (burst - 1 - i) + ";";
            assertThat(passed.headers().firstValue("RateLimit")).hasValueSatisfying(v -> assertThat(v).startsWith(left));
        }
        HttpResponse<String> refused = get(gateway, "/v1/labels/next", headers);
        assertThat(refused.statusCode()).as("%s: the request after its burst of %d", rule, burst).isEqualTo(429);
        assertThat(refused.headers().firstValue("Retry-After")).hasValueSatisfying(v -> assertThat(Long.parseLong(v)).isBetween(1L, 60L));
        assertThat(refused.headers().firstValue("RateLimit")).hasValueSatisfying(v -> assertThat(v).startsWith("\"" + rule + "\";r=0;"));
        assertThat(backendHits.get() - hitsBefore).as("requests that reached the backend").isEqualTo(burst);
    }

    @Test
    void twoPlansOnOneRouteGetTheirOwnLimitsThroughAGatewayOnTheClient() {
        passesItsBurstThen429(gatewayOnClient, plan("free", "key_" + UUID.randomUUID()), "labels-free", 2);
        passesItsBurstThen429(gatewayOnClient, plan("growth", "key_" + UUID.randomUUID()), "labels-growth", 4);
    }

    @Test
    void twoPlansOnOneRouteGetTheirOwnLimitsThroughAGatewayWithTheEngineEmbedded() {
        passesItsBurstThen429(gatewayEmbedded, plan("free", "key_" + UUID.randomUUID()), "labels-free", 2);
        passesItsBurstThen429(gatewayEmbedded, plan("growth", "key_" + UUID.randomUUID()), "labels-growth", 4);
    }

    @Test
    void aGatewayOnTheClientAndOneWithTheEngineEmbeddedSpendOneLimitOfAPlan() {
        Map<String, String> headers = plan("growth", "key_" + UUID.randomUUID());
        int passed = 0;
        for (int i = 0; i < 8; i++) {
            passed += get(i % 2 == 0 ? gatewayOnClient : gatewayEmbedded, "/v1/labels/x", headers).statusCode() == 200 ? 1 : 0;
        }
        assertThat(passed).as("growth's burst, across both gateways").isEqualTo(4);
    }

    @Test
    void aRequestWithoutAnAttributeItsRouteReadsIs403AndNeverReachesTheBackend() {
        int hitsBefore = backendHits.get();
        assertThat(get(gatewayOnClient, "/v1/labels/1", Map.of("X-Plan", "free")).statusCode()).as("no api key").isEqualTo(403);
        assertThat(get(gatewayEmbedded, "/v1/labels/1", Map.of("X-Api-Key", "key_" + UUID.randomUUID())).statusCode()).as("no plan").isEqualTo(403);
        assertThat(get(gatewayOnClient, "/v1/labels/1", plan("free", "x".repeat(300))).statusCode()).as("a key Tollgate would refuse").isEqualTo(403);
        assertThat(backendHits.get() - hitsBefore).isZero();
    }

    @Test
    void theGatewayOnTheClientRunsWithoutTheEngineOnItsClassPath() {
        ClassLoader loader = onClient.getClassLoader();
        assertThat(loader).isInstanceOf(WithoutEngine.class);
        assertThatThrownBy(() -> loader.loadClass("dev.tollgate.limiter.Limiter")).isInstanceOf(ClassNotFoundException.class);
        assertThatThrownBy(() -> loader.loadClass("io.lettuce.core.RedisClient")).isInstanceOf(ClassNotFoundException.class);
        Object checks = onClient.getBean("tollgateChecks");
        assertThat(checks.getClass().getName()).isEqualTo("dev.tollgate.gateway.ClientChecks");
        assertThat(checks.getClass().getClassLoader()).as("the adapter's classes, resolved without the engine").isSameAs(loader);
    }

    @Test
    void aVerifiedJwtsClaimsPickThePlanAndTheAccountAndTheRouteIdTheRules() {
        passesItsBurstThen429(gatewayWithJwts, bearer(jwt(JWT_SECRET, "acct_" + UUID.randomUUID(), "free")), "route-free", 1);
        passesItsBurstThen429(gatewayWithJwts, bearer(jwt(JWT_SECRET, "acct_" + UUID.randomUUID(), "growth")), "route-growth", 3);
    }

    @Test
    void aJwtThatDoesNotVerifyIsNeverReadAndARequestWithoutOneHasNoPlan() {
        int hitsBefore = backendHits.get();
        String forged = jwt("another-secret-" + UUID.randomUUID() + "-at-least-256-bits", "acct_" + UUID.randomUUID(), "growth");
        assertThat(get(gatewayWithJwts, "/v1/labels/1", bearer(forged)).statusCode()).as("Spring Security refuses it").isEqualTo(401);
        // the claims of a token nobody verified, as a plain header: not read, so the request lacks its plan and account
        assertThat(get(gatewayWithJwts, "/v1/labels/1", Map.of("X-Jwt", jwt(JWT_SECRET, "acct_x", "growth"))).statusCode()).isEqualTo(403);
        assertThat(get(gatewayWithJwts, "/v1/labels/1", Map.of()).statusCode()).isEqualTo(403);
        assertThat(backendHits.get() - hitsBefore).isZero();
    }

    static Map<String, String> bearer(String token) {
        return Map.of("Authorization", "Bearer " + token);
    }

    static String jwt(String secret, String subject, String plan) {
        try {
            SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), new JWTClaimsSet.Builder()
                    .subject(subject).claim("plan", plan).expirationTime(new Date(System.currentTimeMillis() + 600_000)).build());
            jwt.sign(new MACSigner(secret.getBytes(StandardCharsets.UTF_8)));
            return jwt.serialize();
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
    }
}
