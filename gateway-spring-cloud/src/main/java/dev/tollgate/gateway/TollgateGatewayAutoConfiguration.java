package dev.tollgate.gateway;

import dev.tollgate.client.TollgateClient;
import dev.tollgate.client.affinity.DnsPodSource;
import dev.tollgate.gateway.key.AccountKeyResolver;
import dev.tollgate.gateway.key.IpKeyResolver;
import dev.tollgate.gateway.key.RouteKeyResolver;
import dev.tollgate.limiter.Limiter;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.cloud.gateway.config.GatewayAutoConfiguration;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;

/**
 * The limiter ({@code tollgateRateLimiter}) and the key resolvers ({@code tollgateAccountKeyResolver}, the default;
 * {@code tollgateRouteKeyResolver}, {@code tollgateIpKeyResolver}) for routes to name; in client mode also the
 * client's meters on the application's registry, its {@code tollgateClient} health indicator (with the actuator) and
 * the caller's {@code traceparent} forwarded on each check. Before Spring Cloud Gateway's
 * own configuration, whose {@code RequestRateLimiter} filter exists only when a limiter and a resolver already do.
 * {@code tollgate.gateway.enabled=false} turns it off.
 */
@AutoConfiguration(before = GatewayAutoConfiguration.class)
@ConditionalOnProperty(prefix = "tollgate.gateway", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(TollgateGatewayProperties.class)
public class TollgateGatewayAutoConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    @ConditionalOnProperty(prefix = "tollgate.gateway", name = "mode", havingValue = "client", matchIfMissing = true)
    TollgateClient tollgateClient(TollgateGatewayProperties properties, ObjectProvider<TollgateClientCustomizer> customizers) {
        TollgateGatewayProperties.Client client = properties.client();
        if (client.sourcesGiven() != 1) {
            throw new IllegalStateException("tell the Tollgate gateway limiter where check-service is with exactly one of "
                    + "tollgate.gateway.client.endpoint (a Service address), tollgate.gateway.client.pods (a list, key affinity) "
                    + "or tollgate.gateway.client.dns-service (a headless Service, key affinity); or set tollgate.gateway.mode=embedded");
        }
        TollgateClient.Builder builder = TollgateClient.builder().deadline(client.deadline()).failMode(properties.failMode())
                .token(client.token());
        if (client.endpoint() != null) {
            builder.endpoint(client.endpoint());
        } else if (!client.pods().isEmpty()) {
            builder.pods(client.pods());
        } else {
            builder.podSource(DnsPodSource.start(client.dnsService(), client.dnsPort(), client.dnsRefresh()));
        }
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        return builder.build();
    }

    /** The caller's traceparent on the check, in client mode (the embedded engine makes no call to carry it on). */
    @Bean
    @ConditionalOnProperty(prefix = "tollgate.gateway", name = "mode", havingValue = "client", matchIfMissing = true)
    TraceparentForwarding tollgateTraceparentForwarding() {
        return new TraceparentForwarding();
    }

    /** The client's meters (tollgate.client.*) on the application's registry, when Micrometer and a registry are there. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
    static class ClientMeters {

        @Bean
        TollgateClientCustomizer tollgateClientMeters(ObjectProvider<MeterRegistry> registry) {
            return builder -> {
                MeterRegistry meters = registry.getIfUnique();
                if (meters != null) {
                    builder.meterRegistry(meters);
                }
            };
        }
    }

    /** {@code tollgateClient} in the health endpoint, with Spring Boot's health support on the class path (the actuator). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    @ConditionalOnEnabledHealthIndicator("tollgate-client")
    @ConditionalOnProperty(prefix = "tollgate.gateway", name = "mode", havingValue = "client", matchIfMissing = true)
    static class ClientHealth {

        @Bean
        @ConditionalOnMissingBean(name = "tollgateClientHealthIndicator")
        TollgateClientHealthIndicator tollgateClientHealthIndicator(TollgateClient client) {
            return new TollgateClientHealthIndicator(client);
        }
    }

    @Bean
    @ConditionalOnMissingBean
    Checks tollgateChecks(TollgateGatewayProperties properties, ObjectProvider<TollgateClient> client, ObjectProvider<Limiter> limiter) {
        if (properties.mode() == TollgateGatewayProperties.Mode.EMBEDDED) {
            Limiter engine = limiter.getIfUnique();
            if (engine == null) {
                throw new IllegalStateException("tollgate.gateway.mode=embedded needs one dev.tollgate.limiter.Limiter bean: build it with "
                        + "Limiter.builder(ruleBook, RedisCounterStore.connect(settings)) on the region's Redis Cluster");
            }
            return new EmbeddedChecks(engine, properties.failMode());
        }
        return new ClientChecks(client.getObject());
    }

    /** Primary: beside Spring Cloud Gateway's own Redis limiter (an application with Spring Data Redis gets it too). */
    @Bean
    @Primary
    TollgateRateLimiter tollgateRateLimiter(Checks checks, ConfigurationService configurationService) {
        return new TollgateRateLimiter(checks, configurationService);
    }

    @Bean
    @Primary
    AccountKeyResolver tollgateAccountKeyResolver(TollgateGatewayProperties properties) {
        return new AccountKeyResolver(properties.keys().accountHeader());
    }

    @Bean
    RouteKeyResolver tollgateRouteKeyResolver() {
        return new RouteKeyResolver();
    }

    @Bean
    IpKeyResolver tollgateIpKeyResolver(TollgateGatewayProperties properties) {
        return new IpKeyResolver(properties.keys().trustedProxies());
    }
}
