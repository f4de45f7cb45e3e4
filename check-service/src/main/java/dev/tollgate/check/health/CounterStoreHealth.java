package dev.tollgate.check.health;

import dev.tollgate.limiter.Limiter;
import dev.tollgate.limiter.store.RedisCounterStore;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.stereotype.Component;

import java.util.Map;
import java.util.TreeMap;

/**
 * The counter store as this pod sees it: connected or not, and each shard's breaker. It stays UP
 * while shards are down, on purpose: the pod keeps answering from fallback buckets, and a readiness
 * probe that failed here would pull every pod of the region at once during a store outage, turning
 * a limiter outage into an API outage. The breaker gauges and fail_open counters are what alert.
 */
@Component("counterStoreHealthIndicator")
class CounterStoreHealth implements HealthIndicator {

    private final RedisCounterStore store;
    private final Limiter limiter;

    CounterStoreHealth(RedisCounterStore store, Limiter limiter) {
        this.store = store;
        this.limiter = limiter;
    }

    @Override
    public Health health() {
        Map<String, String> shards = new TreeMap<>();
        boolean degraded = !store.isConnected();
        for (Map.Entry<String, CircuitBreaker> shard : limiter.breakers().all().entrySet()) {
            CircuitBreaker.State state = shard.getValue().getState();
            shards.put(shard.getKey(), describe(state));
            degraded |= state != CircuitBreaker.State.CLOSED;
        }
        return Health.up()
                .withDetail("connected", store.isConnected())
                .withDetail("mode", degraded ? "degraded: fail modes apply to some keys" : "global checks")
                .withDetail("shards", shards)
                .build();
    }

    private static String describe(CircuitBreaker.State state) {
        return switch (state) {
            case CLOSED -> "global checks";
            case HALF_OPEN -> "probing";
            default -> "fallback";
        };
    }
}
