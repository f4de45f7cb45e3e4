package dev.tollgate.check.tracing;

import io.lettuce.core.tracing.MicrometerTracing;
import io.micrometer.observation.ObservationPredicate;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What tracing adds to the check's path, on ({@code management.tracing.export.enabled}, the chart's
 * {@code tracing.enabled}) or off; {@link TracingSwitch} takes Spring Boot's tracer away when off.
 */
@Configuration(proxyBeanMethods = false)
class TracingConfiguration {

    /** The engine's observation ({@code tollgate.check}) is there for its span: its timers are no documented metric. */
    static final String CHECK_OBSERVATION = "tollgate.check";

    /**
     * Redis commands as spans. Spring Boot's own Lettuce observation is excluded in application.yml: it
     * would put an observation (and a timer) on every command of every check even with tracing off. On,
     * each command is a span under the check that sent it; command arguments, which hold callers' keys,
     * stay out.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(name = TracingSwitch.EXPORT, havingValue = "true", matchIfMissing = true)
    static class On {

        @Bean
        ClientResourcesBuilderCustomizer redisCommandSpans(ObservationRegistry observations) {
            return resources -> resources.tracing(new MicrometerTracing(observations, "redis", false));
        }
    }

    /** Off, the engine's observation is a no-op: without a span it would only build two timers per check. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(name = TracingSwitch.EXPORT, havingValue = "false")
    static class Off {

        @Bean
        ObservationPredicate noCheckObservationWithoutTracing() {
            return (name, context) -> !CHECK_OBSERVATION.equals(name);
        }
    }
}
