package dev.tollgate.rules;

import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.limiter.Limiter;
import dev.tollgate.limiter.hotkeys.HotKeysPublisher;
import dev.tollgate.limiter.pods.PodRegistry;
import dev.tollgate.limiter.rules.StaticRuleBook;
import dev.tollgate.store.RedisCounterStore;
import dev.tollgate.store.RedisStoreSettings;
import dev.tollgate.store.key.RedisKeys;
import dev.tollgate.testsupport.redis.RedisCluster;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One check-service pod as far as hot keys go, on the shared cluster: its engine on one rule, its registry heartbeat
 * and its hot-keys publisher, on a store connection of its own. It publishes when told ({@link #publish}), never by
 * itself, so a test sees exactly what it checked.
 */
final class Pod implements AutoCloseable {

    private final RedisCounterStore store;
    private final PodRegistry registry;
    private final Limiter limiter;
    private final HotKeysPublisher publisher;
    private final Rule rule;

    Pod(String region, String id, Rule rule) {
        this.rule = rule;
        this.store = RedisCounterStore.connect(RedisStoreSettings.of(RedisCluster.shared().seedUris())
                .withCommandTimeout(Duration.ofSeconds(2)));
        this.registry = new PodRegistry(store, region, id, Duration.ofMinutes(1), Duration.ofMinutes(5), 1);
        this.limiter = Limiter.builder(new StaticRuleBook(List.of(rule)), store).livePods(registry).build();
        // an interval no test waits for
        this.publisher = new HotKeysPublisher(store, limiter.hotKeys(), region, id, Duration.ofSeconds(29));
        // the registry beats at start, on its own thread: wait for it, as the service's read would find it
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (store.connection().sync().zscore(RedisKeys.podRegistry(region), id) == null) {
            assertThat(System.nanoTime()).as("pod " + id + " beat within 10 s").isLessThan(deadline);
            LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
        }
    }

    /** {@code times} checks of {@code key}, each answered by the store (one store call each: no optimizations). */
    void check(String key, int times) {
        for (int i = 0; i < times; i++) {
            assertThat(limiter.check(new CheckRequest(rule.domain(), List.of(CheckEntry.of(rule.id(), key, 1)))).join().answered())
                    .hasValueSatisfying(response -> assertThat(response.entries().get(0).fallback()).isNull());
        }
    }

    void publish() {
        publisher.publishNow();
    }

    @Override
    public void close() {
        publisher.close();
        registry.close();
        store.close();
    }
}
