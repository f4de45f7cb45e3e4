package dev.tollgate.check.config;

import io.lettuce.core.tracing.MicrometerTracing;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Redis commands as spans, only while tracing is on ({@code management.tracing.enabled}, the chart's
 * {@code tracing.enabled}). Spring Boot's own Lettuce observation is excluded in application.yml: it would
 * put an observation (and a timer) on every command of every check even with tracing off. On, each
 * command is a span under the check that sent it; command arguments, which hold callers' keys, stay out.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "management.tracing.enabled", havingValue = "true")
class TracingConfiguration {

    @Bean
    ClientResourcesBuilderCustomizer redisCommandSpans(ObservationRegistry observations) {
        return resources -> resources.tracing(new MicrometerTracing(observations, "redis", false));
    }
}
