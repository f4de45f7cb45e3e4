package dev.tollgate.rebalancer.config;

import jakarta.validation.Valid;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.validation.annotation.Validated;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The regions whose usage the rebalancer reads, each with its Redis Cluster and its slice of the
 * default split. Each region's {@code redis} takes what Spring Boot's {@code spring.data.redis} takes
 * (cluster nodes, username, password, ssl, timeouts). A region is keyed by its name in a file:
 *
 * <pre>
 * tollgate.regions.us-east.default-share=0.60
 * tollgate.regions.eu-west.redis.cluster.nodes=redis-1.eu-west.internal:6379,redis-2.eu-west.internal:6379
 * tollgate.regions.eu-west.redis.ssl.enabled=true
 * tollgate.regions.eu-west.default-share=0.25
 * </pre>
 *
 * or by an index and its {@code name} in environment variables, whose names cannot spell the dash most
 * region names carry (the chart's form):
 *
 * <pre>
 * TOLLGATE_REGIONS_0_NAME=us-east-1
 * TOLLGATE_REGIONS_0_DEFAULTSHARE=0.60
 * TOLLGATE_REGIONS_1_NAME=eu-west-1
 * TOLLGATE_REGIONS_1_DEFAULTSHARE=0.40
 * TOLLGATE_REGIONS_1_REDIS_CLUSTER_NODES=redis-1.eu-west-1.internal:6379
 * TOLLGATE_REGIONS_1_REDIS_SSL_ENABLED=true
 * </pre>
 *
 * The instance's own region ({@code tollgate.region}, e.g. {@code TOLLGATE_REGION}) may leave out its
 * {@code redis}: it is then {@code spring.data.redis.*}, the same {@code SPRING_DATA_REDIS_*} variables
 * its pods use. With no {@code tollgate.regions} at all there is one region, its share always 1.
 *
 * <p>The default split must be the one the pods use: a pod applies its {@code tollgate.region.default-share}
 * to every key without a budget row, so the two must agree for the shares of such a key to sum to 1.
 *
 * @param region  this instance's region, or empty
 * @param regions every region, by its name or by an index with a {@code name}
 */
@Validated
@ConfigurationProperties("tollgate")
public record RegionsProperties(String region, Map<String, @Valid Region> regions) {

    public RegionsProperties {
        region = region == null || region.isBlank() ? null : region.trim();
        regions = regions == null ? Map.of() : regions;
    }

    /**
     * @param name         the region's name, the one its budget rows carry; required when the region is keyed by an
     *                     index ({@code TOLLGATE_REGIONS_0_NAME}), else the key is the name
     * @param defaultShare the region's slice of the default split; required with more than one region
     * @param redis        its Redis Cluster, as {@code spring.data.redis} would take it
     */
    public record Region(String name, @DecimalMin(value = "0", inclusive = false) @DecimalMax("1") Double defaultShare,
                         DataRedisProperties redis) {
    }

    /**
     * A region resolved.
     *
     * @param redis    its Redis Cluster; empty for this instance's own region when it is {@code spring.data.redis.*}
     * @param property the region's properties as they were given ({@code tollgate.regions.eu-west} or
     *                 {@code tollgate.regions[1]}), for messages that name what to fix
     */
    public record Resolved(String name, double defaultShare, Optional<DataRedisProperties> redis, String property) {
    }

    /**
     * Every region, sorted by name (so the order, and which region absorbs rounding, never depends on how
     * the properties were given), with its Redis; fails with the property to fix.
     */
    public List<Resolved> resolve() {
        if (regions.isEmpty()) {
            return List.of(new Resolved(region == null ? "local" : region, 1.0, Optional.empty(), "tollgate.regions"));
        }
        Map<String, Resolved> byName = new TreeMap<>();
        for (Map.Entry<String, Region> entry : regions.entrySet()) {
            String key = entry.getKey();
            Region config = entry.getValue() == null ? new Region(null, null, null) : entry.getValue();
            boolean indexed = key.chars().allMatch(Character::isDigit);
            String property = indexed ? "tollgate.regions[" + key + "]" : "tollgate.regions." + key;
            String name = config.name() == null || config.name().isBlank() ? null : config.name().trim();
            if (name == null) {
                if (indexed) {
                    throw new IllegalArgumentException(property + ".name (TOLLGATE_REGIONS_" + key + "_NAME) is missing: name the region "
                            + "its other TOLLGATE_REGIONS_" + key + "_* settings are for, as its budget rows name it");
                }
                name = key;
            }
            Optional<DataRedisProperties> redis = Optional.ofNullable(config.redis()).filter(RegionsProperties::namesNodes);
            if (redis.isEmpty() && !name.equals(region)) {
                throw new IllegalArgumentException(property + ".redis.cluster.nodes: name region " + name + "'s Redis Cluster nodes "
                        + "(host:port, comma-separated)");
            }
            Double share = config.defaultShare();
            if (share == null) {
                if (regions.size() > 1) {
                    throw new IllegalArgumentException(property + ".default-share is missing: give every region its slice of "
                            + "the default split (e.g. 0.60 / 0.25 / 0.15), the same as that region's pods use");
                }
                share = 1.0;
            }
            Resolved previous = byName.put(name, new Resolved(name, share, redis, property));
            if (previous != null) {
                throw new IllegalArgumentException(previous.property() + " and " + property + " both name region " + name);
            }
        }
        if (region != null && !byName.containsKey(region)) {
            throw new IllegalArgumentException("tollgate.region is " + region + " but tollgate.regions names only " + byName.keySet()
                    + ": add it, with its default-share (its Redis defaults to spring.data.redis.*)");
        }
        return List.copyOf(byName.values());
    }

    private static boolean namesNodes(DataRedisProperties redis) {
        return redis.getCluster() != null && redis.getCluster().getNodes() != null
                && redis.getCluster().getNodes().stream().anyMatch(node -> node != null && !node.isBlank());
    }
}
