package dev.tollgate.check.envoy;

import dev.tollgate.check.access.ServiceTokens;
import dev.tollgate.check.config.CheckProperties;
import dev.tollgate.limiter.Limiter;
import dev.tollgate.limiter.rules.DescriptorBook;
import dev.tollgate.limiter.rules.RuleBook;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.util.Optional;

/** The gRPC port for Envoy, unless {@code tollgate.grpc.enabled} is false. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "tollgate.grpc.enabled", havingValue = "true", matchIfMissing = true)
class RlsConfiguration {

    @Bean
    RlsServer rlsServer(CheckProperties properties, Limiter limiter, DescriptorBook descriptors, RuleBook rules, MeterRegistry registry,
                        ServiceTokens tokens, @Qualifier("enforcingHealthIndicator") HealthIndicator readiness,
                        ObjectProvider<SslBundles> sslBundles) {
        RateLimitGrpcService rateLimits = new RateLimitGrpcService(limiter, descriptors, rules, new RlsMetrics(registry));
        String bundle = properties.grpc().sslBundle();
        Optional<SslBundle> tls = bundle == null || bundle.isBlank() ? Optional.empty() : Optional.of(sslBundles.getObject().getBundle(bundle));
        return new RlsServer(properties.grpc(), rateLimits.bindService(), new ServiceTokenInterceptor(tokens), readiness, tls);
    }
}
