package dev.tollgate.check.tracing;

import org.springframework.boot.autoconfigure.AutoConfigurationImportFilter;
import org.springframework.boot.autoconfigure.AutoConfigurationMetadata;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;

import java.util.Set;

/**
 * Tracing off ({@code management.tracing.export.enabled=false}, the chart's {@code tracing.enabled})
 * means no tracer on the check's path, not only no export: Spring Boot 4 still builds its OpenTelemetry
 * tracer and hangs it on every observation when export is off (a propagator extract per request, a span
 * per observation, exemplar lookups on every recorded metric). Off, this leaves out the auto-configurations
 * that do so; Boot's no-op tracer stands in for anyone who asks for a {@code Tracer}.
 *
 * <p>{@code management.tracing.enabled} was Boot 3's switch and Boot 4 no longer reads it: set, it stops the
 * pod at start-up naming its replacement, rather than leaving an operator's "on" silently off.
 */
public final class TracingSwitch implements AutoConfigurationImportFilter, EnvironmentAware {

    public static final String EXPORT = "management.tracing.export.enabled";
    static final String RETIRED = "management.tracing.enabled";

    /** What puts spans on requests; NoopTracerAutoConfiguration stays. */
    static final Set<String> TRACING = Set.of(
            "org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration",
            "org.springframework.boot.micrometer.tracing.autoconfigure.prometheus.PrometheusExemplarsAutoConfiguration",
            "org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure.OpenTelemetryTracingAutoConfiguration",
            "org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure.otlp.OtlpTracingAutoConfiguration",
            "org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure.zipkin.ZipkinWithOpenTelemetryTracingAutoConfiguration");

    private Environment environment;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    /** Whether spans are made and exported: Boot's default (on) unless the property says otherwise. */
    public static boolean tracing(Environment environment) {
        if (environment.containsProperty(RETIRED)) {
            throw new IllegalStateException(RETIRED + " is no longer read (Spring Boot 4): set " + EXPORT
                    + " (MANAGEMENT_TRACING_EXPORT_ENABLED; the chart's tracing.enabled)");
        }
        return environment.getProperty(EXPORT, Boolean.class, true);
    }

    @Override
    public boolean[] match(String[] autoConfigurationClasses, AutoConfigurationMetadata metadata) {
        boolean tracing = tracing(environment);
        boolean[] matches = new boolean[autoConfigurationClasses.length];
        for (int i = 0; i < autoConfigurationClasses.length; i++) {
            // an earlier filter's leftovers are null
            String candidate = autoConfigurationClasses[i];
            matches[i] = tracing || candidate == null || !TRACING.contains(candidate);
        }
        return matches;
    }
}
