package dev.tollgate.limiter.breaker;

import dev.tollgate.store.StoreException;
import dev.tollgate.testsupport.time.MutableClock;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Every transition of the design's table "A pod's view of one counter shard". */
class ShardBreakersTest {

    private static final StoreException TIMEOUT = new StoreException(StoreException.Kind.TIMEOUT, "t", null);

    /** Resilience4j probes once the wait is strictly over: one millisecond past the design's second. */
    private static final Duration OPEN_FOR = Duration.ofMillis(1_001);

    private final MutableClock clock = new MutableClock(Instant.parse("2026-09-30T12:00:00Z"));
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ShardBreakers breakers = new ShardBreakers(BreakerSettings.DEFAULTS, clock, registry);
    private final CircuitBreaker shard = breakers.forShard("shard-7");

    @Test
    void reportsEachStateAsItsOwnSeriesThroughResilience4j() {
        openIt();

        assertThat(registry.get("resilience4j.circuitbreaker.state").tag("name", "shard-7").tag("state", "open").gauge().value()).isEqualTo(1);
        assertThat(registry.get("resilience4j.circuitbreaker.state").tag("name", "shard-7").tag("state", "closed").gauge().value()).isZero();
    }

    @Test
    void forgetsAShardNoCheckAskedForAfterAFailoverWithItsSeries() {
        openIt();
        clock.advance(ShardBreakers.IDLE_AFTER.minusSeconds(1));
        breakers.forShard("shard-8");
        assertThat(breakers.all()).containsOnlyKeys("shard-7", "shard-8");

        clock.advance(Duration.ofSeconds(2));
        breakers.forShard("shard-8");

        assertThat(breakers.all()).as("the failed-over primary is gone, the one in use stays").containsOnlyKeys("shard-8");
        assertThat(registry.find(ShardBreakers.STATE_METRIC).tag("shard", "shard-7").gauge()).isNull();
        assertThat(registry.find("resilience4j.circuitbreaker.state").tag("name", "shard-7").gauges()).isEmpty();
        assertThat(registry.find(ShardBreakers.STATE_METRIC).tag("shard", "shard-8").gauge()).isNotNull();
    }

    @Test
    void globalChecksStayGlobalWhileRepliesArrive() {
        for (int i = 0; i < 10; i++) {
            assertThat(shard.tryAcquirePermission()).isTrue();
            shard.onSuccess(1, TimeUnit.MILLISECONDS);
        }
        assertThat(shard.getState()).isEqualTo(CircuitBreaker.State.CLOSED);
    }

    @Test
    void aReplyResetsTheCountOfTimeoutsInARow() {
        fail();
        fail();
        succeed();
        fail();
        fail();
        assertThat(shard.getState()).isEqualTo(CircuitBreaker.State.CLOSED);
        fail();
        assertThat(shard.getState()).isEqualTo(CircuitBreaker.State.OPEN);
    }

    @Test
    void theThirdTimeoutInARowSendsChecksToFallback() {
        fail();
        fail();
        assertThat(shard.getState()).isEqualTo(CircuitBreaker.State.CLOSED);
        fail();
        assertThat(shard.getState()).isEqualTo(CircuitBreaker.State.OPEN);
        assertThat(shard.tryAcquirePermission()).as("no check waits for the timeout any more").isFalse();
        assertThat(registry.get(ShardBreakers.STATE_METRIC).tag("shard", "shard-7").gauge().value()).isEqualTo(1);
    }

    @Test
    void fallbackProbesAfterOneSecondWithOneCheckAtATime() {
        openIt();
        clock.advance(Duration.ofMillis(999));
        assertThat(shard.tryAcquirePermission()).isFalse();
        clock.advance(Duration.ofMillis(2));
        assertThat(shard.tryAcquirePermission()).as("the probe").isTrue();
        assertThat(shard.getState()).isEqualTo(CircuitBreaker.State.HALF_OPEN);
        assertThat(shard.tryAcquirePermission()).as("a second check while probing").isFalse();
        assertThat(registry.get(ShardBreakers.STATE_METRIC).tag("shard", "shard-7").gauge().value()).isEqualTo(2);
    }

    @Test
    void aProbeThatRepliesReturnsToGlobalChecks() {
        openIt();
        clock.advance(OPEN_FOR);
        assertThat(shard.tryAcquirePermission()).isTrue();
        shard.onSuccess(1, TimeUnit.MILLISECONDS);
        assertThat(shard.getState()).isEqualTo(CircuitBreaker.State.CLOSED);
        assertThat(shard.tryAcquirePermission()).isTrue();
    }

    @Test
    void aProbeThatTimesOutReturnsToFallbackForAnotherSecond() {
        openIt();
        clock.advance(OPEN_FOR);
        assertThat(shard.tryAcquirePermission()).isTrue();
        shard.onError(5, TimeUnit.MILLISECONDS, TIMEOUT);
        assertThat(shard.getState()).isEqualTo(CircuitBreaker.State.OPEN);
        assertThat(shard.tryAcquirePermission()).isFalse();
        clock.advance(OPEN_FOR);
        assertThat(shard.tryAcquirePermission()).isTrue();
    }

    @Test
    void oneSlowShardLeavesTheOthersGlobal() {
        openIt();
        assertThat(breakers.forShard("shard-8").tryAcquirePermission()).isTrue();
        assertThat(breakers.all()).containsOnlyKeys("shard-7", "shard-8");
    }

    private void openIt() {
        fail();
        fail();
        fail();
        assertThat(shard.getState()).isEqualTo(CircuitBreaker.State.OPEN);
    }

    private void fail() {
        assertThat(shard.tryAcquirePermission()).isTrue();
        shard.onError(5, TimeUnit.MILLISECONDS, TIMEOUT);
    }

    private void succeed() {
        assertThat(shard.tryAcquirePermission()).isTrue();
        shard.onSuccess(1, TimeUnit.MILLISECONDS);
    }
}
