package dev.tollgate.check.config;

import dev.tollgate.check.rules.RulesFile;
import dev.tollgate.limiter.Limiter;
import dev.tollgate.limiter.LimiterSettings;
import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.limiter.rules.RuleBook;
import dev.tollgate.limiter.rules.StaticRuleBook;
import dev.tollgate.limiter.store.RedisCounterStore;
import dev.tollgate.limiter.store.RedisStoreSettings;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.nio.file.Path;
import java.util.List;

/** Assembles the engine: the region's Redis Cluster, the rules, and the metrics registry. */
@Configuration(proxyBeanMethods = false)
class LimiterConfiguration {

    @Bean(destroyMethod = "close")
    RedisCounterStore counterStore(CheckProperties properties) {
        CheckProperties.Redis redis = properties.redis();
        return RedisCounterStore.connect(new RedisStoreSettings(
                redis.seeds(), redis.username(), redis.password(), redis.commandTimeout(), redis.topologyRefresh()));
    }

    @Bean
    RuleBook ruleBook(CheckProperties properties) {
        String file = properties.rules().file();
        return new StaticRuleBook(file == null || file.isBlank() ? List.of() : RulesFile.read(Path.of(file)));
    }

    @Bean
    LimiterMetrics limiterMetrics(MeterRegistry registry) {
        return new LimiterMetrics(registry);
    }

    @Bean
    Limiter limiter(RuleBook ruleBook, RedisCounterStore store, CheckProperties properties, LimiterMetrics metrics) {
        return Limiter.builder(ruleBook, store)
                .settings(new LimiterSettings(properties.check().maxEntries(), properties.breaker().settings()))
                .metrics(metrics)
                .build();
    }
}
