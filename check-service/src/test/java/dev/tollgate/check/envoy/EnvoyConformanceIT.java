package dev.tollgate.check.envoy;

import com.google.protobuf.UInt64Value;
import dev.tollgate.testsupport.redis.RedisCluster;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import tools.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * envoyproxy/ratelimit's documented behaviour, as a table ({@code envoy-ratelimit/conformance.yaml}), against a
 * real pod serving its configuration files unchanged from {@code tollgate.envoy.config-dir}, on a real Redis Cluster.
 */
class EnvoyConformanceIT {

    static final Path CONFIG = Path.of("src/test/resources/envoy-ratelimit/config");
    private static final Path TABLE = Path.of("src/test/resources/envoy-ratelimit/conformance.yaml");
    private static final Map<String, Long> UNIT_SECONDS = Map.of("SECOND", 1L, "MINUTE", 60L, "HOUR", 3_600L, "DAY", 86_400L);

    private static EnvoyPod pod;
    private static final String RUN = UUID.randomUUID().toString().substring(0, 8);

    @BeforeAll
    static void startPod() {
        pod = EnvoyPod.start("envoy-conformance", RedisCluster.shared().clusterNodes(),
                Map.of("tollgate.rules.file", "", "tollgate.envoy.config-dir", CONFIG.toString()));
    }

    @AfterAll
    static void stopPod() throws InterruptedException {
        if (pod != null) {
            pod.close();
        }
    }

    @TestFactory
    Stream<DynamicTest> everyCaseOfTheTable() throws IOException {
        List<Map<String, Object>> cases = new YAMLMapper().readValue(Files.readString(TABLE), List.class);
        assertThat(cases).hasSizeGreaterThan(10);
        return cases.stream().map(row -> DynamicTest.dynamicTest((String) row.get("case"), () -> run(row)));
    }

    @SuppressWarnings("unchecked")
    private static void run(Map<String, Object> row) {
        String domain = (String) row.get("domain");
        List<Map<String, Object>> calls = (List<Map<String, Object>>) row.get("calls");
        for (int c = 0; c < calls.size(); c++) {
            Map<String, Object> call = calls.get(c);
            RateLimitRequest request = request(domain, call);
            RateLimitResponse answer = pod.shouldRateLimitLogged(request);
            String where = row.get("case") + ", call " + (c + 1);
            assertThat(answer.getOverallCode().name()).as(where).isEqualTo(call.get("overall"));
            List<String> statuses = (List<String>) call.get("statuses");
            assertThat(answer.getStatusesCount()).as(where).isEqualTo(statuses.size());
            for (int i = 0; i < statuses.size(); i++) {
                status(where + ", descriptor " + (i + 1), statuses.get(i), answer.getStatuses(i));
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static RateLimitRequest request(String domain, Map<String, Object> call) {
        RateLimitRequest.Builder request = RateLimitRequest.newBuilder().setDomain(domain);
        if (call.get("hits_addend") != null) {
            request.setHitsAddend(((Number) call.get("hits_addend")).intValue());
        }
        List<Object> descriptorHits = (List<Object>) call.getOrDefault("descriptor_hits", List.of());
        List<List<String>> descriptors = (List<List<String>>) call.get("descriptors");
        for (int d = 0; d < descriptors.size(); d++) {
            List<String> pairs = descriptors.get(d);
            RateLimitDescriptor.Builder descriptor = RateLimitDescriptor.newBuilder();
            for (int i = 0; i < pairs.size(); i += 2) {
                descriptor.addEntries(RateLimitDescriptor.Entry.newBuilder().setKey(pairs.get(i)).setValue(pairs.get(i + 1).replace("{run}", RUN)));
            }
            if (d < descriptorHits.size() && descriptorHits.get(d) != null) {
                descriptor.setHitsAddend(UInt64Value.of(((Number) descriptorHits.get(d)).longValue()));
            }
            request.addDescriptors(descriptor);
        }
        return request.build();
    }

    private static void status(String where, String expected, DescriptorStatus status) {
        String[] parts = expected.split(" ");
        assertThat(status.getCode().name()).as(where).isEqualTo(parts[0]);
        if (parts.length == 1) {
            assertThat(status.hasCurrentLimit()).as(where + ": no limit applies").isFalse();
            return;
        }
        if (parts[1].equals("unlimited")) {
            assertThat(status.hasCurrentLimit()).as(where).isFalse();
            assertThat(Integer.toUnsignedLong(status.getLimitRemaining())).as(where).isEqualTo(0xFFFF_FFFFL);
            return;
        }
        assertThat(status.getLimitRemaining()).as(where + ": remaining").isEqualTo(Integer.parseInt(parts[1]));
        String[] limit = parts[2].split("/");
        assertThat(status.getCurrentLimit().getRequestsPerUnit()).as(where + ": requests_per_unit").isEqualTo(Integer.parseInt(limit[0]));
        assertThat(status.getCurrentLimit().getUnit().name()).as(where + ": unit").isEqualTo(limit[1]);
        long resetMs = status.getDurationUntilReset().getSeconds() * 1000 + status.getDurationUntilReset().getNanos() / 1_000_000;
        long unitMs = UNIT_SECONDS.get(limit[1]) * 1000;
        assertThat(resetMs).as(where + ": duration_until_reset").isBetween(1L, unitMs);
        if (limit[1].equals("DAY")) {
            Instant now = Instant.now();
            long untilMidnight = now.until(now.atZone(ZoneOffset.UTC).toLocalDate().plusDays(1).atStartOfDay(ZoneOffset.UTC).toInstant(), ChronoUnit.MILLIS);
            assertThat(resetMs).as(where + ": a day window ends at UTC midnight").isBetween(untilMidnight - 5_000, untilMidnight + 5_000);
        }
    }

    /** Every file of the directory is served: one domain each. */
    @org.junit.jupiter.api.Test
    void everyFileOfTheDirectoryIsADomainInForce() throws IOException {
        try (Stream<Path> files = Files.list(CONFIG)) {
            assertThat(pod.meters().get("tollgate.envoy.config.domains").gauge().value()).isEqualTo(files.count());
        }
        assertThat(pod.meters().get("tollgate.envoy.config.loads").tag("outcome", "applied").counter().count()).isEqualTo(1);
    }
}
