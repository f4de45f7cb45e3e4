package dev.tollgate.check;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/**
 * check-service. The auto-configurations it leaves out are on its class path through its starters but
 * serve nothing it does: each would be parsed, have its conditions evaluated and build beans on every
 * cold start (docs/performance.md, "What a pod no longer does before its first answer"). Left out here rather than in application.yml, where a
 * launcher's own {@code spring.autoconfigure.exclude} (dev-stack's) would replace them.
 */
@SpringBootApplication(excludeName = {
        // the store drives Lettuce's cluster client itself: no reactive templates
        "org.springframework.boot.data.redis.autoconfigure.DataRedisReactiveAutoConfiguration",
        // no repositories and no transactions
        "org.springframework.boot.data.autoconfigure.metrics.DataRepositoryMetricsAutoConfiguration",
        "org.springframework.boot.persistence.autoconfigure.PersistenceExceptionTranslationAutoConfiguration",
        "org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration",
        "org.springframework.boot.transaction.autoconfigure.TransactionManagerCustomizationAutoConfiguration",
        // no log appender feeds OpenTelemetry: logs go to stdout (traces are TracingSwitch's)
        "org.springframework.boot.opentelemetry.autoconfigure.logging.OpenTelemetryLoggingAutoConfiguration",
        "org.springframework.boot.opentelemetry.autoconfigure.logging.otlp.OtlpLoggingAutoConfiguration",
        // JSON in, JSON out: no multipart bodies, no web sessions
        "org.springframework.boot.webflux.autoconfigure.ReactiveMultipartAutoConfiguration",
        "org.springframework.boot.webflux.autoconfigure.WebSessionIdResolverAutoConfiguration"})
@ConfigurationPropertiesScan
public class CheckServiceApplication {

    /** What {@link SpringBootApplication#excludeName()} holds, for the test that keeps the list honest. */
    static final String[] LEFT_OUT = CheckServiceApplication.class.getAnnotation(SpringBootApplication.class).excludeName();

    public static void main(String[] args) {
        SpringApplication.run(CheckServiceApplication.class, args);
    }
}
