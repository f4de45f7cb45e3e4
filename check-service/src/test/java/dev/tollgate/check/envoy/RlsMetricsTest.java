package dev.tollgate.check.envoy;

import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.common.check.EntryResult;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class RlsMetricsTest {

    private final MeterRegistry registry = new SimpleMeterRegistry();
    private final RlsMetrics metrics = new RlsMetrics(registry);

    private void hit(String descriptor, EntryResult result) {
        DescriptorCheck check = new DescriptorCheck(Optional.empty(), new int[][] {{0}}, new boolean[1], List.of(Optional.of(descriptor)), 0, 0, List.of());
        metrics.detailed(check, CheckResponse.of(List.of(result)));
    }

    private double count(String descriptor, String code) {
        Counter counter = registry.find(RlsMetrics.DETAILED).tag("descriptor", descriptor).tag("code", code).counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void detailedDescriptorsAreCountedPerValueAndVerdict() {
        hit("api.ip_10.0.0.1", EntryResult.allowed("r", 1, 1000));
        hit("api.ip_10.0.0.1", EntryResult.denied("r", 0, 1000, 1000));
        hit("api.ip_10.0.0.1", EntryResult.denied("r", 0, 1000, 1000).asShadow());

        assertThat(count("api.ip_10.0.0.1", "ok")).as("a shadow deny answers OK").isEqualTo(2);
        assertThat(count("api.ip_10.0.0.1", "over_limit")).isEqualTo(1);
    }

    /** The values are the callers': one client sending random ones must not grow the registry without end. */
    @Test
    void theSeriesAreBoundedAndTheRestCountedTogether() {
        for (int i = 0; i < RlsMetrics.MAX_DETAILED_SERIES + 500; i++) {
            hit("api.ip_" + i, EntryResult.allowed("r", 1, 1000));
        }
        hit("api.ip_" + "x".repeat(1000), EntryResult.allowed("r", 1, 1000));

        assertThat(registry.find(RlsMetrics.DETAILED).counters()).hasSize(RlsMetrics.MAX_DETAILED_SERIES + 1);
        assertThat(count(RlsMetrics.OTHER, "ok")).isEqualTo(501);
        assertThat(registry.find(RlsMetrics.DETAILED).counters())
                .allSatisfy(counter -> assertThat(counter.getId().getTag("descriptor")).hasSizeLessThanOrEqualTo(RlsMetrics.MAX_DETAIL_CHARS));
    }
}
