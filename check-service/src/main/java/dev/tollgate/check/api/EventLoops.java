package dev.tollgate.check.api;

import org.springframework.boot.reactor.netty.autoconfigure.ReactorNettyProperties;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.client.ReactorResourceFactory;
import reactor.netty.resources.LoopResources;

import java.time.Duration;

/**
 * The HTTP port's event loops and connection pool are this context's own, not Reactor Netty's JVM-wide ones.
 *
 * <p>Why: Boot's resource factory uses the global resources, and its {@code stop()} disposes them
 * ({@code HttpResources.disposeLoopsAndConnectionsLater}), so closing one context killed the loops of every other
 * Reactor Netty server and client in the JVM: the other contexts of a test run, a check-service embedded beside
 * other services (dev-stack works around it in {@code ServiceLauncher}). Boot 4 has no property for this
 * ({@code spring.reactor.netty.*} holds only the shutdown quiet period, kept here); the bean replaces Boot's,
 * which backs off when one exists, the management port's child context included.
 *
 * <p>The loops themselves are a bean of their own ({@link CheckLoops}), lent to the factory: the store's Lettuce
 * channels run on them too, so they must outlive the store's client, which is closed when the context's beans are
 * destroyed, after the factory's lifecycle has stopped.
 */
@Configuration(proxyBeanMethods = false)
class EventLoops {

    /** Reactor Netty's own switch for its loops' count (its {@code ReactorNetty.IO_WORKER_COUNT}). */
    static final String WORKER_COUNT = "reactor.netty.ioWorkerCount";

    /** Unless whoever starts the context gave it a factory of its own already (an embedder, a test's own loops). */
    @Bean
    @ConditionalOnMissingBean(ReactorResourceFactory.class)
    ReactorResourceFactory reactorResourceFactory(ReactorNettyProperties properties, CheckLoops loops) {
        ReactorResourceFactory resources = new ReactorResourceFactory();
        resources.setUseGlobalResources(false);
        // lent, so the factory's stop() leaves them running
        resources.setLoopResources(loops.resources());
        if (properties.getShutdownQuietPeriod() != null) {
            resources.setShutdownQuietPeriod(properties.getShutdownQuietPeriod());
        }
        return resources;
    }

    /**
     * One loop per core, where Reactor Netty's default is at least four: nothing on them blocks, and the store's
     * connections share them ({@link CheckLoops}), so fewer loops put a check and its shard's connection on one
     * thread more often, and wake fewer threads per check (bench scenario 8, store-bound mix: docs/performance.md,
     * "Cheap store calls"). {@code -Dreactor.netty.ioWorkerCount} still decides when set. Lazy: an embedder's own
     * factory leaves them unused, and no thread of theirs is ever started.
     */
    @Bean
    CheckLoops checkLoops(ReactorNettyProperties properties) {
        Duration quietPeriod = properties.getShutdownQuietPeriod() != null
                ? properties.getShutdownQuietPeriod() : Duration.ofSeconds(LoopResources.DEFAULT_SHUTDOWN_QUIET_PERIOD);
        int loops = System.getProperty(WORKER_COUNT) != null ? LoopResources.DEFAULT_IO_WORKER_COUNT : Runtime.getRuntime().availableProcessors();
        return new CheckLoops(LoopResources.create("webflux-http", loops, true), quietPeriod);
    }
}
