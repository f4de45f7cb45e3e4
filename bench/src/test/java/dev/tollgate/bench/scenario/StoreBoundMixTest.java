package dev.tollgate.bench.scenario;

import dev.tollgate.common.rule.Limit;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class StoreBoundMixTest {

    @Test
    void theRouteBucketIsTooSmallToLeaseMoreThanOneRequest() {
        Limit.TokenBucket route = (Limit.TokenBucket) StoreBoundMix.ROUTE.limit();
        // a lease is at most max(1, ⌊whole ÷ (2 × askers × cost)⌋) of each bucket of its set (docs/optimizations.md): one pod, cost 1
        int largestGrant = Math.max(1, route.burst() / 2);

        assertThat(largestGrant).isEqualTo(1);
        assertThat(route.ratePerS()).isEqualTo(5);
    }

    @Test
    void theRulesFileMapsTheNarrowRouteToItsRuleForHttpAndEnvoy() {
        assertThat(WireChecks.rulesFile()).contains("  - id: labels-route\n").contains("rate_per_s: 5\n").contains("burst: 3\n")
                .contains("""
                              - key: route
                                value: "/v1/labels/batch"
                                descriptors:
                                  - key: account
                                    rule: labels-route
                        """);
    }

    @Test
    void thePeersConfigurationHasEveryDescriptorAtItsRulesRate() {
        String method = WireMixes.peerMethod();

        assertThat(method).contains("domain: bench\n")
                .contains("  - key: plan\n    value: \"enterprise\"\n    descriptors:\n      - key: account\n"
                        + "        rate_limit: { unit: second, requests_per_unit: 1000 }\n")
                .contains("    value: \"/v1/labels/batch\"\n    descriptors:\n      - key: account\n"
                        + "        rate_limit: { unit: second, requests_per_unit: 5 }\n")
                .contains("REDIS_TYPE=cluster").contains("REDIS_PIPELINE_WINDOW");
    }

    @Test
    void eachCheckIsThePlanAndTheRouteOnOneKeyAndWrkGetsEveryKey() {
        StoreBoundMix mix = StoreBoundMix.of("-r1", 3);

        assertThat(mix.keys()).isEqualTo(3);
        assertThat(mix.bodies()).extracting(body -> new String(body, StandardCharsets.UTF_8)).containsExactly(
                "{\"domain\":\"bench\",\"entries\":[{\"rule\":\"enterprise\",\"key\":\"store_0-r1\",\"cost\":1},"
                        + "{\"rule\":\"labels-route\",\"key\":\"store_0-r1\",\"cost\":1}]}",
                "{\"domain\":\"bench\",\"entries\":[{\"rule\":\"enterprise\",\"key\":\"store_1-r1\",\"cost\":1},"
                        + "{\"rule\":\"labels-route\",\"key\":\"store_1-r1\",\"cost\":1}]}",
                "{\"domain\":\"bench\",\"entries\":[{\"rule\":\"enterprise\",\"key\":\"store_2-r1\",\"cost\":1},"
                        + "{\"rule\":\"labels-route\",\"key\":\"store_2-r1\",\"cost\":1}]}");
        assertThat(mix.next().envoy().getDescriptorsList()).hasSize(2);
    }
}
