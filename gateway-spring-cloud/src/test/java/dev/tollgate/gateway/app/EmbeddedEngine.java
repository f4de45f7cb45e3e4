package dev.tollgate.gateway.app;

import dev.tollgate.check.rules.RulesFile;
import dev.tollgate.limiter.Limiter;
import dev.tollgate.limiter.rules.StaticRuleBook;
import dev.tollgate.store.RedisCounterStore;
import dev.tollgate.store.RedisStoreSettings;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** The engine in the gateway's process, as an application in {@code tollgate.gateway.mode=embedded} defines it. */
@Configuration(proxyBeanMethods = false)
public class EmbeddedEngine {

    @Bean(destroyMethod = "close")
    RedisCounterStore counterStore(@Value("${test.redis-seeds}") List<String> seeds) {
        return RedisCounterStore.connect(new RedisStoreSettings(seeds, null, null, Duration.ofMillis(200), Duration.ofSeconds(10), Duration.ofSeconds(1)));
    }

    @Bean
    Limiter limiter(RedisCounterStore store, @Value("${test.rules-file}") Path rules) {
        return Limiter.builder(new StaticRuleBook(RulesFile.read(rules)), store).build();
    }
}
