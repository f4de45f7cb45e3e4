package dev.tollgate.check.startup;

import dev.tollgate.check.tracing.TracingSwitch;
import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/** The choices Spring AOT fixes in the build, as recorded there and compared with a pod's at start-up. */
class AotChoicesTest {

    /** The shape process-aot is given in check-service/pom.xml: the chart's. */
    private static MockEnvironment chartShaped() {
        return new MockEnvironment()
                .withProperty("server.port", "8080")
                .withProperty(AotChoices.MANAGEMENT_PORT, "8081")
                .withProperty(AotChoices.RULES_SERVICE, "http://rules-service:8081")
                .withProperty(TracingSwitch.EXPORT, "false");
    }

    @Test
    void aPodOfTheBuildsShapeStartsWhateverItsAddressesPortsAndRedisTls() {
        String recorded = AotChoices.write(AotChoices.of(chartShaped()));
        MockEnvironment pod = chartShaped()
                .withProperty("server.port", "9080")
                .withProperty(AotChoices.MANAGEMENT_PORT, "9081")
                .withProperty(AotChoices.RULES_SERVICE, "https://rules.us-east.internal")
                // TLS to Redis through a bundle, as the chart's default: read when the client is built, not a condition
                .withProperty("spring.data.redis.ssl.enabled", "true")
                .withProperty("spring.data.redis.ssl.bundle", "redis");

        assertThat(AotChoices.refusal(recorded, pod)).isNull();
    }

    @Test
    void eachChoiceMadeOtherwiseIsNamedWithBothSides() {
        String recorded = AotChoices.write(AotChoices.of(chartShaped()));
        MockEnvironment pod = new MockEnvironment()
                .withProperty("tollgate.rules.file", "rules.yml")
                .withProperty(TracingSwitch.EXPORT, "true")
                .withProperty(AotChoices.GRPC, "false");

        String refusal = AotChoices.refusal(recorded, pod);

        assertThat(refusal)
                .contains("management.server.port: built for a port of its own; this pod's configuration: the server's port")
                .contains("tollgate.rules.service-url: built for set (rules from rules-service); this pod's configuration: empty (rules from the file)")
                .contains("management.tracing.export.enabled: built for off; this pod's configuration: on")
                .contains("tollgate.grpc.enabled: built for on; this pod's configuration: off")
                .contains("-Dspring.aot.enabled=false");
    }

    @Test
    void aJarWithoutTheRecordIsRefusedToo() {
        assertThat(AotChoices.refusal(null, chartShaped())).contains(AotChoices.RESOURCE).contains("-Dspring.aot.enabled=false");
    }
}
