package dev.tollgate.check.api;

import org.springframework.boot.reactor.netty.autoconfigure.ReactorNettyProperties;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.client.ReactorResourceFactory;

/**
 * The HTTP port's event loops and connection pool are this context's own, not Reactor Netty's JVM-wide ones.
 *
 * <p>Why: Boot's resource factory uses the global resources, and its {@code stop()} disposes them
 * ({@code HttpResources.disposeLoopsAndConnectionsLater}), so closing one context killed the loops of every other
 * Reactor Netty server and client in the JVM: the other contexts of a test run, a check-service embedded beside
 * other services (dev-stack works around it in {@code ServiceLauncher}). Boot 4 has no property for this
 * ({@code spring.reactor.netty.*} holds only the shutdown quiet period, kept here); the bean replaces Boot's,
 * which backs off when one exists, the management port's child context included.
 */
@Configuration(proxyBeanMethods = false)
class EventLoops {

    /** Unless whoever starts the context gave it a factory of its own already (an embedder, a test's own loops). */
    @Bean
    @ConditionalOnMissingBean(ReactorResourceFactory.class)
    ReactorResourceFactory reactorResourceFactory(ReactorNettyProperties properties) {
        ReactorResourceFactory resources = new ReactorResourceFactory();
        resources.setUseGlobalResources(false);
        if (properties.getShutdownQuietPeriod() != null) {
            resources.setShutdownQuietPeriod(properties.getShutdownQuietPeriod());
        }
        return resources;
    }
}
