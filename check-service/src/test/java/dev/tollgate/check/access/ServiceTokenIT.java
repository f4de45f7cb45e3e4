package dev.tollgate.check.access;

import dev.tollgate.check.CheckServiceApplication;
import dev.tollgate.check.envoy.RlsServer;
import dev.tollgate.testsupport.redis.RedisCluster;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
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
