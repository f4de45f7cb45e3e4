package dev.tollgate.limiter.breaker;

import dev.tollgate.store.StoreException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * One breaker per counter shard, with the design's transitions:
 *
 * <pre>
 * Global checks -- 3rd timeout in a row --> Fallback      (count-based window of 3, all failed)
 * Fallback      -- 1 s                  --> Probing       (checked lazily by the next check)
 * Probing       -- probe replies        --> Global checks (fallback buckets of the shard dropped)
 * Probing       -- probe times out      --> Fallback
 * </pre>
 *
 * One probe at a time: Probing admits a single call; every other check meanwhile answers from
 * fallback, so no check waits for the store timeout once the shard is clearly gone. A shard is the
 * primary that owns a key's slot: after a failover the slot has a new owner and a fresh breaker.
 */
public final class ShardBreakers {

    public static final String STATE_METRIC = "tollgate.breaker.state";

    private final CircuitBreakerConfig config;
    private final Map<String, CircuitBreaker> breakers = new ConcurrentHashMap<>();
    private final MeterRegistry registry;
    private final Consumer<String> onClosed;

    /**
     * @param onClosed told the shard id whenever a shard's breaker closes again (to drop its fallback buckets)
     */
    public ShardBreakers(BreakerSettings settings, Clock clock, MeterRegistry registry, Consumer<String> onClosed) {
        this.config = CircuitBreakerConfig.custom()
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(settings.failuresToOpen())
                .minimumNumberOfCalls(settings.failuresToOpen())
                .failureRateThreshold(100)
                .waitDurationInOpenState(settings.openFor())
                .permittedNumberOfCallsInHalfOpenState(1)
                .automaticTransitionFromOpenToHalfOpenEnabled(false)
                .recordException(error -> error instanceof StoreException)
                .writableStackTraceEnabled(false)
                .clock(clock)
                .build();
        this.registry = registry;
        this.onClosed = onClosed;
    }

    public CircuitBreaker forShard(String shard) {
        CircuitBreaker breaker = breakers.get(shard);
        return breaker != null ? breaker : breakers.computeIfAbsent(shard, this::create);
    }

    /** Every shard this pod has talked to, with its breaker: for health and metrics. */
    public Map<String, CircuitBreaker> all() {
        return Map.copyOf(breakers);
    }

    private CircuitBreaker create(String shard) {
        CircuitBreaker breaker = CircuitBreaker.of(shard, config);
        breaker.getEventPublisher().onStateTransition(event -> {
            if (event.getStateTransition().getToState() == CircuitBreaker.State.CLOSED) {
                onClosed.accept(shard);
            }
        });
        Gauge.builder(STATE_METRIC, breaker, b -> stateValue(b.getState()))
                .description("Breaker per counter shard: 0 global checks, 1 fallback, 2 probing")
                .tag("shard", shard)
                .register(registry);
        return breaker;
    }

    static int stateValue(CircuitBreaker.State state) {
        return switch (state) {
            case CLOSED -> 0;
            case HALF_OPEN -> 2;
            default -> 1;
        };
    }
}
