package dev.tollgate.check.tracing;

import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TracingSwitchTest {

    private static final String TRACER = "org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure.OpenTelemetryTracingAutoConfiguration";
    private static final String HANDLERS = "org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration";
    private static final String NOOP = "org.springframework.boot.micrometer.tracing.autoconfigure.NoopTracerAutoConfiguration";
    private static final String WEBFLUX = "org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration";

    private static boolean[] match(MockEnvironment environment) {
        TracingSwitch tracing = new TracingSwitch();
        tracing.setEnvironment(environment);
        return tracing.match(new String[] {TRACER, HANDLERS, NOOP, WEBFLUX, null}, null);
    }

    @Test
    void offLeavesBootsTracerAndItsObservationHandlersOutAndEverythingElseIn() {
        assertThat(match(new MockEnvironment().withProperty(TracingSwitch.EXPORT, "false"))).containsExactly(false, false, true, true, true);
    }

    @Test
    void onOrUnsetAsInSpringBootKeepsThemAll() {
        assertThat(match(new MockEnvironment().withProperty(TracingSwitch.EXPORT, "true"))).containsExactly(true, true, true, true, true);
        assertThat(match(new MockEnvironment())).containsExactly(true, true, true, true, true);
    }

    @Test
    void boot3sSwitchStopsThePodNamingItsReplacement() {
        assertThatThrownBy(() -> match(new MockEnvironment().withProperty(TracingSwitch.RETIRED, "true")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("management.tracing.enabled is no longer read")
                .hasMessageContaining("management.tracing.export.enabled");
    }
}
