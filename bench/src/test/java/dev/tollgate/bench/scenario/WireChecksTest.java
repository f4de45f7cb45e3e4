package dev.tollgate.bench.scenario;

import dev.tollgate.bench.Bench;
import dev.tollgate.bench.wire.WireCheck;
import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WireChecksTest {

    @Test
    void theRulesFileHoldsTheMixsPlansAndRouteWithTheirNumbers() {
        String yaml = WireChecks.rulesFile();

        assertThat(yaml).startsWith("rules:\n")
                .contains("""
                          - id: enterprise
                            domain: bench
                            match: { plan: enterprise }
                            algorithm: token_bucket
                            rate_per_s: 1000
                            period_s: 1
                            burst: 2000
                        """)
                .contains("  - id: growth\n").contains("rate_per_s: 100\n").contains("burst: 200\n")
                .contains("  - id: free\n").contains("rate_per_s: 10\n").contains("burst: 20\n")
                .contains("""
                          - id: route
                            domain: bench
                            match: { route: "/v1/labels" }
                        """);
    }

    @Test
    void envoysDescriptorsMapToTheSameRulesOnTheAccountsKey() {
        String yaml = WireChecks.rulesFile();

        assertThat(yaml).contains("""
                descriptor_domains:
                  - domain: bench
                    descriptors:
                      - key: plan
                        value: "enterprise"
                        descriptors:
                          - key: account
                            rule: enterprise
                            limit_key: account
                """)
                .contains("""
                              - key: route
                                value: "/v1/labels"
                                descriptors:
                                  - key: account
                                    rule: route
                                    limit_key: account
                        """);
    }

    @Test
    void aCheckOfTheMixIsOneJsonBodyAndOneEnvoyRequestWithADescriptorPerEntry() {
        CheckRequest request = new CheckRequest(Bench.DOMAIN, List.of(
                CheckEntry.of("growth", "growth_3-r1", 1), CheckEntry.of("route", "growth_3-r1", 1)));

        WireCheck check = WireChecks.of(request);

        assertThat(new String(check.json(), StandardCharsets.UTF_8)).isEqualTo("{\"domain\":\"bench\",\"entries\":["
                + "{\"rule\":\"growth\",\"key\":\"growth_3-r1\",\"cost\":1},{\"rule\":\"route\",\"key\":\"growth_3-r1\",\"cost\":1}]}");
        assertThat(check.envoy().getDomain()).isEqualTo("bench");
        assertThat(check.envoy().getDescriptorsList()).extracting(WireChecksTest::text)
                .containsExactly("plan=growth,account=growth_3-r1", "route=/v1/labels,account=growth_3-r1");
    }

    @Test
    void aRuleTheRulesFileDoesNotHoldIsRefused() {
        CheckRequest request = new CheckRequest(Bench.DOMAIN, List.of(CheckEntry.of("partner", "p", 1)));

        assertThatThrownBy(() -> WireChecks.of(request)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("partner");
    }

    private static String text(RateLimitDescriptor descriptor) {
        return String.join(",", descriptor.getEntriesList().stream().map(e -> e.getKey() + "=" + e.getValue()).toList());
    }
}
