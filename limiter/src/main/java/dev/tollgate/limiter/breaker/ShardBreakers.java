package dev.tollgate.limiter.breaker;

import dev.tollgate.store.StoreException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.micrometer.tagged.TaggedCircuitBreakerMetrics;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * One breaker per counter shard, with the design's transitions:
 *
 * <pre>
 * Global checks -- 3rd timeout in a row --> Fallback      (count-based window of 3, all failed)
 * Fallback      -- 1 s                  --> Probing       (checked lazily by the next check)
 * Probing       -- probe replies        --> Global checks (fallback buckets kept, see FallbackBuckets)
 * Probing       -- probe times out      --> Fallback
 * </pre>
 *
 * One probe at a time: Probing admits a single call; every other check meanwhile answers from
 * fallback, so no check waits for the store timeout once the shard is clearly gone. A shard is the
 * primary that owns a key's slot: after a failover the slot has a new owner and a fresh breaker.
 *
 * <p>The breakers live in a Resilience4j {@link CircuitBreakerRegistry} whose meters
 * ({@code resilience4j_circuitbreaker_state{name, state}}, calls, failure rate) come and go with its
 * breakers. A breaker no check has asked for in {@link #IDLE_AFTER} is removed with its meters: after a
 * failover the old primary's breaker, left open, would otherwise report an open shard for ever.
 */
public final class ShardBreakers {

    public static final String STATE_METRIC = "tollgate.breaker.state";

    /** Longer than any failover and than the breaker alert's wait, so a shard still in use is never forgotten. */
    static final Duration IDLE_AFTER = Duration.ofMinutes(5);

    private final CircuitBreakerRegistry registry;
    private final Map<String, Shard> shards = new ConcurrentHashMap<>();
    private final MeterRegistry meters;
    private final Clock clock;
    private volatile long nextSweepMs;

    public ShardBreakers(BreakerSettings settings, Clock clock, MeterRegistry meters) {
        CircuitBreakerConfig config = CircuitBreakerConfig.custom()
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(settings.failuresToOpen())
                .minimumNumberOfCalls(settings.failuresToOpen())
                .failureRateThreshold(100)
                .waitDurationInOpenState(settings.openFor())
                .permittedNumberOfCallsInHalfOpenState(1)
                .automaticTransitionFromOpenToHalfOpenEnabled(false)
                .recordException(error -> error instanceof StoreException)
                // one bad key's script error says nothing of the shard: it must not send the shard's other keys to fallback
                .ignoreException(error -> error instanceof StoreException store && store.isKeyError())
                .writableStackTraceEnabled(false)
                .clock(clock)
                .build();
        this.registry = CircuitBreakerRegistry.of(config);
        TaggedCircuitBreakerMetrics.ofCircuitBreakerRegistry(registry).bindTo(meters);
        this.meters = meters;
        this.clock = clock;
        this.nextSweepMs = clock.millis() + IDLE_AFTER.toMillis();
    }

    public CircuitBreaker forShard(String shard) {
        long now = clock.millis();
        if (now >= nextSweepMs) {
            sweep(now);
        }
        Shard known = shards.get(shard);
        if (known == null) {
            known = shards.computeIfAbsent(shard, this::create);
        }
        known.lastAskedMs = now;
        return known.breaker;
    }

    /** Every shard this pod has talked to lately, with its breaker: for health and metrics. */
    public Map<String, CircuitBreaker> all() {
        return shards.entrySet().stream().collect(Collectors.toUnmodifiableMap(Map.Entry::getKey, e -> e.getValue().breaker));
    }

    private Shard create(String shard) {
        CircuitBreaker breaker = registry.circuitBreaker(shard);
        Gauge gauge = Gauge.builder(STATE_METRIC, breaker, b -> stateValue(b.getState()))
                .description("Breaker per counter shard: 0 global checks, 1 fallback, 2 probing")
                .tag("shard", shard)
                .register(meters);
        return new Shard(breaker, gauge, clock.millis());
    }

    /** Forgets the shards no check asked for in {@link #IDLE_AFTER}: a failed-over primary, a resharded node. */
    private synchronized void sweep(long now) {
        if (now < nextSweepMs) {
            return;
        }
        nextSweepMs = now + IDLE_AFTER.toMillis();
        shards.entrySet().removeIf(entry -> {
            Shard shard = entry.getValue();
            if (now - shard.lastAskedMs < IDLE_AFTER.toMillis()) {
                return false;
            }
            registry.remove(entry.getKey());
            meters.remove(shard.gauge);
            return true;
        });
    }

    static int stateValue(CircuitBreaker.State state) {
        return switch (state) {
            case CLOSED -> 0;
            case HALF_OPEN -> 2;
            default -> 1;
        };
    }

    private static final class Shard {
        final CircuitBreaker breaker;
        final Gauge gauge;
        volatile long lastAskedMs;

        Shard(CircuitBreaker breaker, Gauge gauge, long lastAskedMs) {
            this.breaker = breaker;
            this.gauge = gauge;
            this.lastAskedMs = lastAskedMs;
        }
    }
}
