package dev.tollgate.check.startup;

import dev.tollgate.limiter.Limiter;
import dev.tollgate.store.RedisCounterStore;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.util.Set;

/**
 * How a pod starts: the beans it does not need to serve, built only if something asks for them, and the wait for
 * the store's first connect attempt before the ports open (docs/performance.md, "What a pod no longer does before its first answer").
 */
@Configuration(proxyBeanMethods = false)
class StartupConfiguration {

    /**
     * Spring Data Redis's templates, which its auto-configuration also builds the Lettuce connection factory
     * with: nothing in check-service uses them (the store drives Lettuce's cluster client itself), yet built
     * at start they load their serializers' and operations' classes, about 0.3 s of a cold start.
     */
    static final Set<String> LAZY = Set.of("redisTemplate", "stringRedisTemplate");

    /** Static: a post-processor of bean definitions must exist before any other bean does. */
    @Bean
    static BeanFactoryPostProcessor lazyUnusedBeans() {
        return beans -> LAZY.stream().filter(beans::containsBeanDefinition)
                .forEach(name -> beans.getBeanDefinition(name).setLazyInit(true));
    }

    @Bean
    StoreFirstAttempt storeFirstAttempt(RedisCounterStore store, Limiter limiter) {
        return new StoreFirstAttempt(store, limiter);
    }
}
