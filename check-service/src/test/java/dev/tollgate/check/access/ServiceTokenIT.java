package dev.tollgate.check.access;

import dev.tollgate.check.CheckServiceApplication;
import dev.tollgate.check.envoy.RlsServer;
import dev.tollgate.testsupport.http.RawHttp;
import dev.tollgate.testsupport.redis.RedisCluster;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** With service tokens configured, both check ports refuse a caller without one; health stays open. */
class ServiceTokenIT {

    private static final String TOKEN = "gateway-token-7f3a9c1e5b2d4f60";
    private static final String ROTATED = "gateway-token-next-0a1b2c3d4e5f";
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static ConfigurableApplicationContext pod;
    private static ManagedChannel channel;
    private static String base;

    @BeforeAll
    static void start() {
        pod = new SpringApplicationBuilder(CheckServiceApplication.class)
                .web(WebApplicationType.REACTIVE)
                .logStartupInfo(false)
                .run("--server.port=0", "--tollgate.grpc.port=0", "--tollgate.grpc.address=127.0.0.1",
                        "--spring.data.redis.cluster.nodes=" + RedisCluster.shared().clusterNodes(),
                        "--tollgate.redis.command-timeout=2s",
                        "--tollgate.rules.file=src/test/resources/rules-envoy-test.yml", "--tollgate.rules.service-url=",
                        "--tollgate.pods.id=service-token-it", "--tollgate.region.name=service-token-it",
                        "--management.metrics.use-global-registry=false",
                        "--tollgate.access.tokens=" + TOKEN + "," + ROTATED);
        base = "http://127.0.0.1:" + pod.getEnvironment().getProperty("local.server.port");
        channel = NettyChannelBuilder.forAddress("127.0.0.1", pod.getBean(RlsServer.class).port()).usePlaintext().build();
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (channel != null) {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        if (pod != null) {
            pod.close();
        }
    }

    @Test
    void theHttpCheckNeedsAnAcceptedToken() throws Exception {
        HttpResponse<String> none = check(null);
        assertThat(none.statusCode()).isEqualTo(401);
        assertThat(none.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
        assertThat(none.body()).contains("\"code\":\"unauthorized\"").doesNotContain(TOKEN);
        assertThat(check("Bearer not-the-gateway-token-at-all").statusCode()).isEqualTo(401);

        assertThat(check("Bearer " + TOKEN).statusCode()).isEqualTo(200);
        assertThat(check("Bearer " + ROTATED).statusCode()).isEqualTo(200);
        HttpResponse<String> health = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/actuator/health/liveness")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(health.statusCode()).isEqualTo(200);
    }

    @Test
    void theGrpcCheckNeedsAnAcceptedTokenAndHealthDoesNot() {
        RateLimitRequest request = RateLimitRequest.newBuilder().setDomain("envoy")
                .addDescriptors(RateLimitDescriptor.newBuilder().addEntries(
                        RateLimitDescriptor.Entry.newBuilder().setKey("account").setValue("acct_token_it")))
                .build();
        RateLimitServiceGrpc.RateLimitServiceBlockingStub anonymous = RateLimitServiceGrpc.newBlockingStub(channel)
                .withDeadlineAfter(10, TimeUnit.SECONDS);
        assertThatThrownBy(() -> anonymous.shouldRateLimit(request))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED));

        Metadata metadata = new Metadata();
        metadata.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + TOKEN);
        RateLimitResponse answered = anonymous.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(metadata)).shouldRateLimit(request);
        assertThat(answered.getOverallCode()).isEqualTo(RateLimitResponse.Code.OK);

        HealthGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS).check(HealthCheckRequest.getDefaultInstance());
    }

    /**
     * Every spelling a router could read as the check (decoded segments, {@code ;parameters} cut off, dot
     * segments, doubled slashes, the absolute form) is refused without a token, and none is answered
     * with a verdict. Sent on a raw socket: an HTTP client would normalize some of them away.
     */
    @Test
    void noSpellingOfThePathReachesTheCheckWithoutAToken() throws Exception {
        String body = "{\"domain\":\"envoy\",\"entries\":[{\"rule\":\"account-minute\",\"key\":\"acct_token_spelling\"}]}";
        int port = Integer.parseInt(pod.getEnvironment().getProperty("local.server.port"));
        for (String target : List.of("/v1;x/ratelimit:check", "/%761/ratelimit:check", "/v%31/ratelimit:check",
                "/v1/ratelimit%3Acheck", "/v1/ratelimit%3acheck", "/v1/ratelimit:check;x", "/v1;/ratelimit:check",
                "/%2576%31/ratelimit:check", "//v1/ratelimit:check", "/v1//ratelimit:check", "/./v1/ratelimit:check",
                "/x/../v1/ratelimit:check", "/v1/./ratelimit:check", "/v1/ratelimit:check/", "/v1/ratelimit:check?x=1",
                "/actuator/../v1/ratelimit:check", "/actuator;x/../v1/ratelimit:check", "/actuator/%2e%2e/v1/ratelimit:check",
                "/actuator/..%2fv1/ratelimit:check", "/%61ctuator/../v1/ratelimit:check",
                "http://127.0.0.1:" + port + "/v1/ratelimit:check", "http://127.0.0.1:" + port + "/v1;x/ratelimit:check")) {
            RawHttp.Answer answer = RawHttp.exchange(port, "POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Content-Type: application/json\r\nContent-Length: " + body.length() + "\r\nConnection: close\r\n\r\n" + body);
            assertThat(answer.body()).as(target).doesNotContain("\"verdict\"");
            assertThat(answer.status()).as(target).isNotEqualTo(200);
            if (!target.startsWith("/actuator") && !target.startsWith("/%61ctuator")) {
                assertThat(answer.status()).as(target).isEqualTo(401);
            }
        }
        // and the actuator's own paths stay open, however they are spelt
        for (String target : List.of("/actuator/health/liveness", "/actuator;x/health/liveness", "/%61ctuator/health/liveness")) {
            assertThat(RawHttp.exchange(port, "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").status())
                    .as(target).isEqualTo(200);
        }
    }

    /** Methods the router does not match are refused, never answered with a verdict; reflection needs the token too. */
    @Test
    void grpcMethodSpellingsAreNeverAnsweredWithoutAToken() {
        RateLimitRequest request = RateLimitRequest.newBuilder().setDomain("envoy")
                .addDescriptors(RateLimitDescriptor.newBuilder().addEntries(
                        RateLimitDescriptor.Entry.newBuilder().setKey("account").setValue("acct_token_grpc_spelling")))
                .build();
        for (String method : List.of("envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit",
                "envoy.service.ratelimit.v3.RateLimitService/shouldratelimit", "envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit/",
                "envoy.service.ratelimit.v3.RateLimitService//ShouldRateLimit", "envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit;x",
                "%65nvoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit", "envoy.service.ratelimit.v2.RateLimitService/ShouldRateLimit")) {
            MethodDescriptor<RateLimitRequest, RateLimitResponse> spelt = RateLimitServiceGrpc.getShouldRateLimitMethod().toBuilder()
                    .setFullMethodName(method).build();
            assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(channel, spelt, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), request))
                    .as(method)
                    .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode())
                            .isIn(Status.Code.UNAUTHENTICATED, Status.Code.UNIMPLEMENTED));
        }
    }

    private static HttpResponse<String> check(String authorization) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + "/v1/ratelimit:check"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"domain\":\"envoy\",\"entries\":[{\"rule\":\"account-minute\",\"key\":\"acct_token_http\"}]}"));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
