package dev.tollgate.store.spring;

import org.springframework.core.env.Environment;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Settings Tollgate read before its services took Redis from Spring Boot's {@code spring.data.redis.*}.
 * One still set (an old chart value, a {@code TOLLGATE_REDIS_SEEDS} in a manifest) stops the service at
 * start-up naming its replacement, instead of being ignored while the service talks to the default node.
 */
public final class RetiredProperties {

    /** Each retired property of check-service and the budget-rebalancer, and what replaced it. */
    public static final Map<String, String> REDIS = Map.of(
            "tollgate.redis.seeds", "spring.data.redis.cluster.nodes (SPRING_DATA_REDIS_CLUSTER_NODES: host:port, comma-separated;"
                    + " rediss:// is spring.data.redis.ssl.enabled=true)",
            "tollgate.redis.username", "spring.data.redis.username (SPRING_DATA_REDIS_USERNAME)",
            "tollgate.redis.password", "spring.data.redis.password (SPRING_DATA_REDIS_PASSWORD)",
            "tollgate.redis.connect-timeout", "spring.data.redis.connect-timeout and spring.data.redis.timeout",
            "tollgate.redis.topology-refresh", "spring.data.redis.lettuce.cluster.refresh.period");

    /** rules-service's retired usage-read properties. */
    public static final Map<String, String> USAGE_REDIS = Map.of(
            "tollgate.usage.redis.seeds", "spring.data.redis.cluster.nodes (SPRING_DATA_REDIS_CLUSTER_NODES: host:port, comma-separated)",
            "tollgate.usage.redis.username", "spring.data.redis.username (SPRING_DATA_REDIS_USERNAME)",
            "tollgate.usage.redis.password", "spring.data.redis.password (SPRING_DATA_REDIS_PASSWORD)",
            "tollgate.usage.redis.command-timeout", "spring.data.redis.timeout and tollgate.usage.read-timeout");

    private RetiredProperties() {
    }

    /** @throws IllegalStateException naming every retired property that is set, and its replacement */
    public static void refuse(Environment environment, Map<String, String> retired) {
        List<String> set = new ArrayList<>();
        retired.forEach((property, replacement) -> {
            if (environment.containsProperty(property)) {
                set.add(property + " is no longer read: set " + replacement);
            }
        });
        if (!set.isEmpty()) {
            throw new IllegalStateException(String.join("; ", set.stream().sorted().toList()));
        }
    }
}
