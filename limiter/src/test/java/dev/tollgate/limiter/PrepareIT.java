package dev.tollgate.limiter;

import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.limiter.rules.StaticRuleBook;
import dev.tollgate.store.RedisCounterStore;
import dev.tollgate.store.RedisStoreSettings;
import dev.tollgate.testsupport.redis.Node;
import dev.tollgate.testsupport.redis.RedisCluster;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Limiter#prepare()}: what a cold pod's first check on each shard would build within its deadline
 * is built before checks arrive, without a trace in the per-rule or decision series, and a shard that
 * does not answer holds it up for no more than {@link Limiter#PREPARE_WAIT} and leaves its breaker closed:
 * the traffic, not the priming, decides when a shard is gone.
 */
class PrepareIT {

    @RegisterExtension
    static final LimiterFixture fixture = new LimiterFixture();

    private final Rule api = Rule.tokenBucket("api", "public-api", 100, 200).withMatch(new Match("free", null));

    @Test
    void readiesEveryShardOfTheStoreWithoutCountingAsAChecksOrARulesTraffic() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        Limiter limiter = Limiter.builder(new StaticRuleBook(List.of(api)), fixture.store)
                .metrics(new LimiterMetrics(meters)).settings(LimiterFixture.SETTINGS).build();
        assertThat(limiter.prepared()).as("check-service's readiness waits for it").isFalse();

        limiter.prepare();

        assertThat(limiter.prepared()).isTrue();
        assertThat(limiter.breakers().all().keySet()).containsExactlyInAnyOrderElementsOf(fixture.store.shards()).hasSize(3);
        assertThat(meters.find(LimiterMetrics.STORE_CALLS).tag("outcome", "ok").timer())
                .satisfies(calls -> assertThat(calls.count()).isEqualTo(9));
        assertThat(meters.getMeters()).extracting(Meter::getId)
                .noneMatch(id -> "tollgate-prime".equals(id.getTag("rule")))
                .noneMatch(id -> id.getName().equals(LimiterMetrics.CHECKS) || id.getName().equals(LimiterMetrics.DECISIONS));
        for (Node primary : fixture.cluster.primaries()) {
            assertThat(fixture.redis().getConnection(primary.nodeId()).keys("rl:{tollgate-prime-*}:tollgate-prime"))
                    .as("prime keys on %s", primary.hostAndPort()).isNotEmpty();
        }
        // and the engine checks as before
        String key = LimiterFixture.uniqueKey("acct");
        assertThat(LimiterFixture.check(limiter, "public-api", CheckEntry.of("api", key, 1)).entries().get(0).remaining()).isEqualTo(199);
    }

    @Test
    void aFrozenShardHoldsItUpForNoMoreThanItsWait() throws Exception {
        try (RedisCluster cluster = RedisCluster.builder().nodeTimeoutMs(15_000).start();
             RedisCounterStore store = RedisCounterStore.connect(RedisStoreSettings.of(cluster.seedUris())
                     .withCommandTimeout(Duration.ofMillis(50)))) {
            SimpleMeterRegistry meters = new SimpleMeterRegistry();
            Limiter limiter = Limiter.builder(new StaticRuleBook(List.of(api)), store).metrics(new LimiterMetrics(meters)).build();
            Node victim = cluster.primaries().get(0);
            victim.freeze();
            try {
                long started = System.nanoTime();
                limiter.prepare();
                Duration took = Duration.ofNanos(System.nanoTime() - started);

                assertThat(took).isLessThan(Limiter.PREPARE_WAIT.plusSeconds(1));
                assertThat(limiter.breakers().all()).hasSize(3)
                        .allSatisfy((shard, breaker) -> assertThat(breaker.getState()).isEqualTo(CircuitBreaker.State.CLOSED));
                // its checks on the frozen shard timed out: none of that is a client's fallback or a missed deadline
                assertThat(meters.find(LimiterMetrics.STORE_CALLS).tag("outcome", "timeout").timer()).isNotNull();
                assertThat(meters.getMeters()).extracting(Meter::getId)
                        .noneMatch(id -> "tollgate-prime".equals(id.getTag("rule")));
                assertThat(meters.counter(LimiterMetrics.DEADLINE_EXCEEDED).count()).isZero();
                assertThat(meters.counter(LimiterMetrics.LEASE_LOST_ON_TIMEOUT).count()).isZero();
            } finally {
                victim.unfreeze();
            }
        }
    }
}
