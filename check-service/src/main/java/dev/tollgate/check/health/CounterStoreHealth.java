package dev.tollgate.check.health;

import dev.tollgate.check.metrics.CheckMeters;
import dev.tollgate.limiter.Limiter;
import dev.tollgate.store.RedisCounterStore;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.stereotype.Component;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The counter store as this pod sees it: connected or not (since when, and why not), and each shard's
 * breaker. It stays UP while shards are down, on purpose: the pod keeps answering from fallback
 * buckets, and a readiness probe that failed here would pull every pod of the region at once during a
 * store outage, turning a limiter outage into an API outage. The breaker gauges, fail_open counters and
 * {@code tollgate.store.connected} are what alert; readiness waits only for the first connection
 * ({@link EnforcingHealth}).
 */
@Component("counterStoreHealthIndicator")
class CounterStoreHealth implements HealthIndicator {

    private final RedisCounterStore store;
    private final Limiter limiter;

    CounterStoreHealth(RedisCounterStore store, Limiter limiter, MeterRegistry registry) {
        this.store = store;
        this.limiter = limiter;
        Gauge.builder(CheckMeters.STORE_CONNECTED, store, s -> s.isConnected() ? 1 : 0)
                .description("1 once the pod has reached its Redis Cluster since it started, 0 before: all checks answer from fail modes")
                .register(registry);
    }

    @Override
    public Health health() {
        Map<String, String> shards = new TreeMap<>();
        RedisCounterStore.ConnectionStatus connection = store.status();
        boolean degraded = !connection.connected();
        for (Map.Entry<String, CircuitBreaker> shard : limiter.breakers().all().entrySet()) {
            CircuitBreaker.State state = shard.getValue().getState();
            shards.put(shard.getKey(), describe(state));
            degraded |= state != CircuitBreaker.State.CLOSED;
        }
        return Health.up()
                .withDetail("connected", connection.connected())
                .withDetails(connectionDetails(connection))
                .withDetail("mode", !connection.connected() ? "fallback: the counter store has not been reached yet; fail modes apply to every key"
                        : degraded ? "degraded: fail modes apply to some keys" : "global checks")
                .withDetail("shards", shards)
                .build();
    }

    /** When and why, never a credential (the store strips them from every reason). */
    static Map<String, Object> connectionDetails(RedisCounterStore.ConnectionStatus connection) {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put(connection.connected() ? "connectedSince" : "notConnectedSince", connection.since().toString());
        details.put("failedAttempts", connection.failures());
        if (!connection.connected() && connection.lastError() != null) {
            details.put("lastError", connection.lastError());
        }
        return details;
    }

    private static String describe(CircuitBreaker.State state) {
        return switch (state) {
            case CLOSED -> "global checks";
            case HALF_OPEN -> "probing";
            default -> "fallback";
        };
    }
}
