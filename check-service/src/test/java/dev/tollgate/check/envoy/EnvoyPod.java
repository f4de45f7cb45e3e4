package dev.tollgate.check.envoy;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import dev.tollgate.check.CheckServiceApplication;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real check-service in this JVM and a client of its gRPC port, made from Envoy's own generated
 * stubs: what an Envoy (or Istio, Contour, Envoy Gateway) sidecar sends is what these tests send.
 */
final class EnvoyPod implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EnvoyPod.class);

    final ConfigurableApplicationContext context;
    final ManagedChannel channel;
    final RateLimitServiceGrpc.RateLimitServiceBlockingStub rls;

    private EnvoyPod(ConfigurableApplicationContext context) {
        this.context = context;
        int port = context.getBean(RlsServer.class).port();
        this.channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
        this.rls = RateLimitServiceGrpc.newBlockingStub(channel);
    }

    /** A pod with its own id (pods in one JVM would otherwise count as one) over the given cluster and rules. */
    static EnvoyPod start(String id, String clusterNodes, Map<String, String> extra) {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("server.port", "0");
        properties.put("tollgate.grpc.port", "0");
        properties.put("tollgate.grpc.address", "127.0.0.1");
        properties.put("spring.data.redis.cluster.nodes", clusterNodes);
        properties.put("tollgate.redis.command-timeout", "2s");
        properties.put("tollgate.rules.file", "src/test/resources/rules-envoy-test.yml");
        properties.put("tollgate.rules.service-url", "");
        properties.put("tollgate.pods.id", id);
        properties.put("tollgate.region.name", "envoy-it");
        properties.put("management.metrics.use-global-registry", "false");
        properties.put("logging.level.io.lettuce", "ERROR");
        properties.putAll(extra);
        // command-line arguments, not builder properties: those would lose to the module's own application.yml
        List<String> args = new ArrayList<>();
        properties.forEach((key, value) -> args.add("--" + key + "=" + value));
        return new EnvoyPod(new SpringApplicationBuilder(CheckServiceApplication.class)
                .web(WebApplicationType.REACTIVE)
                .logStartupInfo(false)
                .run(args.toArray(String[]::new)));
    }

    RateLimitResponse shouldRateLimit(RateLimitRequest request) {
        return rls.withDeadlineAfter(10, TimeUnit.SECONDS).shouldRateLimit(request);
    }

    /** The call and its answer in grpcurl's words (protobuf JSON), for the log a reader compares with docs/envoy.md. */
    RateLimitResponse shouldRateLimitLogged(RateLimitRequest request) {
        RateLimitResponse response = shouldRateLimit(request);
        try {
            log.info("grpcurl -plaintext -d '{}' 127.0.0.1:8090 envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit\n{}",
                    JsonFormat.printer().omittingInsignificantWhitespace().print(request), JsonFormat.printer().print(response));
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException(e);
        }
        return response;
    }

    MeterRegistry meters() {
        return context.getBean(MeterRegistry.class);
    }

    static RateLimitRequest request(String domain, RateLimitDescriptor... descriptors) {
        return RateLimitRequest.newBuilder().setDomain(domain).addAllDescriptors(List.of(descriptors)).build();
    }

    /** A descriptor of key/value pairs, as Envoy's rate limit actions build them. */
    static RateLimitDescriptor descriptor(String... keysAndValues) {
        RateLimitDescriptor.Builder descriptor = RateLimitDescriptor.newBuilder();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            descriptor.addEntries(RateLimitDescriptor.Entry.newBuilder().setKey(keysAndValues[i]).setValue(keysAndValues[i + 1]));
        }
        return descriptor.build();
    }

    static Map<String, String> headers(RateLimitResponse response) {
        Map<String, String> headers = new LinkedHashMap<>();
        response.getResponseHeadersToAddList().forEach(header -> headers.put(header.getKey(), header.getValue()));
        return headers;
    }

    @Override
    public void close() throws InterruptedException {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        context.close();
    }
}
