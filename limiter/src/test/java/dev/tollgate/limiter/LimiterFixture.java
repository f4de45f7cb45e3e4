package dev.tollgate.limiter;

import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.limiter.rules.StaticRuleBook;
import dev.tollgate.store.RedisCounterStore;
import dev.tollgate.store.RedisStoreSettings;
import dev.tollgate.testsupport.redis.RedisCluster;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;


/**
 * A limiter on the shared real Redis Cluster, for integration tests: register it as a static
 * extension and it closes its connection after the class. Every test uses keys of its own.
 */
final class LimiterFixture implements AutoCloseable, AfterAllCallback {

    /** Generous: these tests are about arithmetic and atomicity on a busy 2-core machine, not about timeouts. */
    static final Duration TEST_TIMEOUT = Duration.ofSeconds(2);
    /**
     * The engine's settings for these tests: a check's deadline above the store's command timeout, or a slow
     * call on a busy machine would be answered from the fallback bucket (and admitted) instead of by the store.
     */
    static final LimiterSettings SETTINGS = LimiterSettings.DEFAULTS.withDeadline(TEST_TIMEOUT.multipliedBy(3));

    final RedisCluster cluster = RedisCluster.shared();
    final RedisCounterStore store;
    final LimiterMetrics metrics = LimiterMetrics.noop();

    LimiterFixture() {
        store = RedisCounterStore.connect(RedisStoreSettings.of(cluster.seedUris()).withCommandTimeout(TEST_TIMEOUT));
    }

    Limiter limiter(Rule... rules) {
        return limiter(Clock.systemUTC(), rules);
    }

    Limiter limiter(Clock clock, Rule... rules) {
        return Limiter.builder(new StaticRuleBook(Arrays.asList(rules)), store).metrics(metrics).clock(clock)
                .settings(SETTINGS).build();
    }

    RedisAdvancedClusterCommands<String, String> redis() {
        return store.connection().sync();
    }

    static String uniqueKey(String prefix) {
        return prefix + "_" + UUID.randomUUID().toString().substring(0, 8);
    }

    static CheckResponse check(Limiter limiter, String domain, CheckEntry... entries) {
        return limiter.check(new CheckRequest(domain, List.of(entries))).join().answered().orElseThrow();
    }

    /** The store's clock, as the scripts see it. */
    long redisTimeMs(String anyKeyOnTheNode) {
        List<String> time = redis().getConnection(cluster.primaryForKey(anyKeyOnTheNode).nodeId()).time();
        return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }

    @Override
    public void close() {
        store.close();
    }
}
