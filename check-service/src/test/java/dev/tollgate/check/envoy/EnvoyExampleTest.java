package dev.tollgate.check.envoy;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.Durations;
import com.google.protobuf.util.JsonFormat;
import io.envoyproxy.envoy.config.bootstrap.v3.Bootstrap;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.route.v3.Route;
import io.envoyproxy.envoy.extensions.filters.http.ratelimit.v3.RateLimit;
import io.envoyproxy.envoy.extensions.filters.http.router.v3.Router;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpFilter;
import io.envoyproxy.envoy.extensions.upstreams.http.v3.HttpProtocolOptions;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Envoy configuration docs/envoy.md recommends, as files a user copies (examples/envoy), read by Envoy's own
 * messages from the API jar: an unknown field, a misspelt enum or a wrong {@code @type} fails here as Envoy
 * would refuse it at start-up. And what it must say for Tollgate's promises to hold.
 */
class EnvoyExampleTest {

    private static final Path EXAMPLES = Path.of("..", "examples", "envoy");
    /** The chart's headless Service for release "tollgate" in namespace "tollgate" (DataPathChartTest). */
    private static final String HEADLESS = "tollgate-check-service-headless.tollgate.svc.cluster.local";
    private static final JsonFormat.TypeRegistry TYPES = JsonFormat.TypeRegistry.newBuilder()
            .add(List.of(HttpConnectionManager.getDescriptor(), RateLimit.getDescriptor(), Router.getDescriptor(),
                    HttpProtocolOptions.getDescriptor()))
            .build();

    @Test
    void theBootstrapIsEnvoysAndKeepsLoginClosedAndTheApiOpen() throws IOException {
        Bootstrap bootstrap = parse(read("envoy.yaml"), Bootstrap.newBuilder());

        HttpConnectionManager api = bootstrap.getStaticResources().getListeners(0).getFilterChains(0).getFilters(0)
                .getTypedConfig().unpack(HttpConnectionManager.class);
        RateLimit filter = api.getHttpFilters(0).getTypedConfig().unpack(RateLimit.class);
        assertThat(api.getHttpFilters(0).getName()).isEqualTo("envoy.filters.http.ratelimit");
        // fail-closed rules answer OVER_LIMIT themselves: false keeps the API serving when Tollgate is unreachable
        assertThat(filter.getFailureModeDeny()).isFalse();
        assertThat(filter.getDomain()).isEqualTo("public-api");
        assertThat(Durations.toMillis(filter.getTimeout())).as("above the pods' 25 ms check deadline").isGreaterThan(25);
        assertThat(filter.getRateLimitService().getGrpcService().getInitialMetadata(0).getKey()).isEqualTo("authorization");
        assertThat(filter.getRateLimitService().getGrpcService().getEnvoyGrpc().getClusterName()).isEqualTo("tollgate");
        assertThat(api.getHttpFilters(api.getHttpFiltersCount() - 1).getName()).isEqualTo("envoy.filters.http.router");

        Cluster tollgate = bootstrap.getStaticResources().getClustersList().stream()
                .filter(cluster -> cluster.getName().equals("tollgate")).findFirst().orElseThrow();
        assertThat(tollgate.getType()).as("a connection to every pod").isEqualTo(Cluster.DiscoveryType.STRICT_DNS);
        assertThat(tollgate.getLoadAssignment().getEndpoints(0).getLbEndpoints(0).getEndpoint().getAddress().getSocketAddress())
                .satisfies(address -> {
                    assertThat(address.getAddress()).isEqualTo(HEADLESS);
                    assertThat(address.getPortValue()).isEqualTo(8090);
                });
        HttpProtocolOptions http2 = tollgate.getTypedExtensionProtocolOptionsOrThrow("envoy.extensions.upstreams.http.v3.HttpProtocolOptions")
                .unpack(HttpProtocolOptions.class);
        assertThat(http2.getExplicitHttpConfig().hasHttp2ProtocolOptions()).isTrue();
        // Tollgate answers a ping every 10 s at most with GOAWAY (tollgate.grpc.permit-keep-alive-time)
        assertThat(Durations.toSeconds(http2.getExplicitHttpConfig().getHttp2ProtocolOptions().getConnectionKeepalive().getInterval()))
                .isGreaterThanOrEqualTo(10);

        assertThat(api.getRouteConfig().getVirtualHosts(0).getRoutesList())
                .allSatisfy(route -> assertThat(route.getRoute().getRateLimitsCount()).isPositive());
    }

    @Test
    void istiosEnvoyFilterPatchesAreEnvoysToo() throws IOException {
        JsonNode patches = read("istio-envoyfilter.yaml").get("spec").get("configPatches");
        HttpFilter filter = parse(patches.get(0).get("patch").get("value"), HttpFilter.newBuilder());
        RateLimit rateLimit = filter.getTypedConfig().unpack(RateLimit.class);
        assertThat(rateLimit.getFailureModeDeny()).isFalse();
        assertThat(rateLimit.getRateLimitService().getGrpcService().getEnvoyGrpc().getClusterName()).contains(HEADLESS).startsWith("outbound|8090|");

        Route route = parse(patches.get(1).get("patch").get("value"), Route.newBuilder());
        assertThat(route.getRoute().getRateLimitsCount()).isPositive();
    }

    private static JsonNode read(String file) throws IOException {
        return new YAMLMapper().readTree(Files.readString(EXAMPLES.resolve(file)));
    }

    @SuppressWarnings("unchecked")
    private static <M extends Message> M parse(JsonNode yaml, Message.Builder builder) throws InvalidProtocolBufferException {
        // not ignoringUnknownFields: an unknown field is what Envoy refuses, and what this test is for
        JsonFormat.parser().usingTypeRegistry(TYPES).merge(yaml.toString(), builder);
        return (M) builder.build();
    }
}
