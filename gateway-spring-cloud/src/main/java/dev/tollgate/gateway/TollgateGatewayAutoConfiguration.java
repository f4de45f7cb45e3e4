package dev.tollgate.gateway;

import dev.tollgate.client.TollgateClient;
import dev.tollgate.client.affinity.DnsPodSource;
import dev.tollgate.gateway.key.AccountKeyResolver;
import dev.tollgate.gateway.key.AttributesKeyResolver;
import dev.tollgate.gateway.key.IpKeyResolver;
import dev.tollgate.gateway.key.RequestAttributes;
import dev.tollgate.gateway.key.RouteKeyResolver;
import dev.tollgate.limiter.Limiter;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
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
 * {@code tollgateRouteKeyResolver}, {@code tollgateIpKeyResolver}, {@code tollgateAttributesKeyResolver}) for routes to name; in client mode also the
 * client's meters on the application's registry, its {@code tollgateClient} health indicator (with the actuator) and
 * the caller's {@code traceparent} forwarded on each check. Before Spring Cloud Gateway's
 * own configuration, whose {@code RequestRateLimiter} filter exists only when a limiter and a resolver already do.
 * {@code tollgate.gateway.enabled=false} turns it off.
 */
@AutoConfiguration(before = GatewayAutoConfiguration.class)
@ConditionalOnProperty(prefix = "tollgate.gateway", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(TollgateGatewayProperties.class)
public class TollgateGatewayAutoConfiguration {

    static final String EMBEDDED_ENGINE = "dev.tollgate.limiter.Limiter";

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

    /** Client mode's checks; the engine is not named here, so a gateway on the client runs without tollgate-limiter. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty(prefix = "tollgate.gateway", name = "mode", havingValue = "client", matchIfMissing = true)
    Checks tollgateChecks(TollgateClient client) {
        return new ClientChecks(client);
    }

    /**
     * Embedded mode's checks, by the application's {@code Limiter}. Only with tollgate-limiter on the class path (an
     * optional dependency of this module): a class that names the engine is never loaded in client mode.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = EMBEDDED_ENGINE)
    @ConditionalOnProperty(prefix = "tollgate.gateway", name = "mode", havingValue = "embedded")
    static class Embedded {

        @Bean
        @ConditionalOnMissingBean
        Checks tollgateChecks(TollgateGatewayProperties properties, ObjectProvider<Limiter> limiter) {
            Limiter engine = limiter.getIfUnique();
            if (engine == null) {
                throw new IllegalStateException("tollgate.gateway.mode=embedded needs one dev.tollgate.limiter.Limiter bean: build it with "
                        + "Limiter.builder(ruleBook, RedisCounterStore.connect(settings)) on the region's Redis Cluster");
            }
            return new EmbeddedChecks(engine, properties.failMode());
        }
    }

    /** Embedded mode asked for, and the engine is not there: say what to add, instead of a missing Checks bean. */
    @Bean
    @ConditionalOnMissingClass(EMBEDDED_ENGINE)
    @ConditionalOnProperty(prefix = "tollgate.gateway", name = "mode", havingValue = "embedded")
    Checks tollgateChecksWithoutEngine() {
        throw new IllegalStateException("tollgate.gateway.mode=embedded runs the engine in the gateway, and it is not on the class path: "
                + "add the dependency dev.tollgate:tollgate-limiter (an optional dependency of tollgate-gateway-spring-cloud), or use "
                + "tollgate.gateway.mode=client");
    }

    /** The request's exchange in the Reactor context, for a route that checks by attributes. */
    @Bean
    ExchangeInContext tollgateExchangeInContext() {
        return new ExchangeInContext();
    }

    @Bean
    RequestAttributes tollgateRequestAttributes(TollgateGatewayProperties properties) {
        return new RequestAttributes(properties.keys().trustedProxies());
    }

    /** Primary: beside Spring Cloud Gateway's own Redis limiter (an application with Spring Data Redis gets it too). */
    @Bean
    @Primary
    TollgateRateLimiter tollgateRateLimiter(Checks checks, RequestAttributes attributes, ConfigurationService configurationService) {
        return new TollgateRateLimiter(checks, attributes, configurationService);
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

    /** For a route that checks by attributes: the request's identity, or nothing when it lacks an attribute its route reads. */
    @Bean
    AttributesKeyResolver tollgateAttributesKeyResolver(TollgateRateLimiter limiter, RequestAttributes attributes) {
        return new AttributesKeyResolver(limiter::sourcesOf, attributes);
    }

    @Bean
    IpKeyResolver tollgateIpKeyResolver(TollgateGatewayProperties properties) {
        return new IpKeyResolver(properties.keys().trustedProxies());
    }
}
