package dev.tollgate.devstack;

import dev.tollgate.devstack.app.Service;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StackOptionsTest {

    @Test
    void defaultsAreTheDesignsPortsWithTwoPods() {
        StackOptions options = StackOptions.defaults();

        assertThat(options.checkPorts()).containsExactly(8080, 8083);
        assertThat(options.rulesPort()).isEqualTo(8081);
        assertThat(options.rebalancerPort()).isEqualTo(8082);
        assertThat(options.address()).isEqualTo("127.0.0.1");
        assertThat(options.devToken()).isEqualTo("dev-token");
        assertThat(options.demoRules()).isTrue();
        assertThat(options.canaryPod(0)).isFalse();
        assertThat(options.canaryPod(1)).as("the second pod is a canary pod").isTrue();
    }

    @Test
    void theLastPodsAreTheCanaryPodsAndOnePodAloneIsNone() {
        StackOptions three = StackOptions.parse("--check-instances=3", "--canary-pods=2");
        assertThat(List.of(three.canaryPod(0), three.canaryPod(1), three.canaryPod(2))).containsExactly(false, true, true);

        assertThat(StackOptions.parse("--check-instances=1").canaryPod(0)).isFalse();
        assertThat(StackOptions.parse("--canary-pods=0").canaryPod(1)).isFalse();
        assertThatThrownBy(() -> StackOptions.parse("--canary-pods=3"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--canary-pods must be between 0 and --check-instances (2)");
    }

    @Test
    void basePortMovesEveryServiceAndFurtherPodsFollowTheExtraPort() {
        StackOptions options = StackOptions.parse("--base-port=9000", "--check-instances=4");

        assertThat(options.checkPorts()).containsExactly(9000, 9003, 9004, 9005);
        assertThat(options.servicePorts()).containsEntry("rules-service", 9001).containsEntry("budget-rebalancer", 9002);
    }

    @Test
    void onePortOptionOverridesTheBase() {
        StackOptions options = StackOptions.parse("--base-port=9000", "--rules-port=7001", "--extra-check-port=7100", "--check-instances=3");

        assertThat(options.rulesPort()).isEqualTo(7001);
        assertThat(options.checkPorts()).containsExactly(9000, 7100, 7101);
    }

    @Test
    void servicePropertiesGoToTheirServiceOnly() {
        StackOptions options = StackOptions.parse("--check-service.tollgate.optimizations.leases=false",
                "--rules-service.tollgate.watch.timeout=2s");

        assertThat(options.propertiesFor(Service.CHECK_SERVICE)).isEqualTo(Map.of("tollgate.optimizations.leases", "false"));
        assertThat(options.propertiesFor(Service.RULES_SERVICE)).isEqualTo(Map.of("tollgate.watch.timeout", "2s"));
        assertThat(options.propertiesFor(Service.BUDGET_REBALANCER)).isEmpty();
    }

    @Test
    void refusesTwoServicesOnOnePort() {
        assertThatThrownBy(() -> StackOptions.parse("--rules-port=8083"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("check-service #2 and rules-service both on port 8083");
    }

    @Test
    void refusesUnknownAndMalformedOptions() {
        for (List<String> args : List.of(List.of("--check-instance=2"), List.of("--check-instances=two"), List.of("8080"),
                List.of("--check-instances=0"), List.of("--base-port=65535"), List.of("--dev-token=a b"), List.of("--no-demo-rules=yes"))) {
            assertThatThrownBy(() -> StackOptions.parse(args.toArray(String[]::new)))
                    .as("%s", args)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }
}
