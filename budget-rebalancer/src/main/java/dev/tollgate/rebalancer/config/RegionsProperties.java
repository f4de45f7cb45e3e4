package dev.tollgate.rebalancer.config;

import jakarta.validation.Valid;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.validation.annotation.Validated;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The regions whose usage the rebalancer reads, each with its Redis Cluster and its slice of the
 * default split. Each region's {@code redis} takes what Spring Boot's {@code spring.data.redis} takes
 * (cluster nodes, username, password, ssl, timeouts):
 *
 * <pre>
 * tollgate.regions.us-east.default-share=0.60
 * tollgate.regions.eu-west.redis.cluster.nodes=redis-1.eu-west.internal:6379,redis-2.eu-west.internal:6379
 * tollgate.regions.eu-west.redis.ssl.enabled=true
 * tollgate.regions.eu-west.default-share=0.25
 * tollgate.regions.ap-south.redis.cluster.nodes=...      (default-share 0.15)
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
 * @param regions every region by the name its budget rows carry
 */
@Validated
@ConfigurationProperties("tollgate")
public record RegionsProperties(String region, Map<String, @Valid Region> regions) {

    public RegionsProperties {
        region = region == null || region.isBlank() ? null : region.trim();
        regions = regions == null ? Map.of() : regions;
    }

    /**
     * @param defaultShare the region's slice of the default split; required with more than one region
     * @param redis        its Redis Cluster, as {@code spring.data.redis} would take it
     */
    public record Region(@DecimalMin(value = "0", inclusive = false) @DecimalMax("1") Double defaultShare, DataRedisProperties redis) {
    }

    /**
     * A region resolved.
     *
     * @param redis its Redis Cluster; empty for this instance's own region when it is {@code spring.data.redis.*}
     */
    public record Resolved(String name, double defaultShare, Optional<DataRedisProperties> redis) {
    }

    /**
     * Every region, sorted by name (so the order, and which region absorbs rounding, never depends on how
     * the properties were given), with its Redis; fails with the property to fix.
     */
    public List<Resolved> resolve() {
        if (regions.isEmpty()) {
            return List.of(new Resolved(region == null ? "local" : region, 1.0, Optional.empty()));
        }
        if (region != null && !regions.containsKey(region)) {
            throw new IllegalArgumentException("tollgate.region is " + region + " but tollgate.regions names only " + regions.keySet()
                    + ": add tollgate.regions." + region + ".default-share (its Redis defaults to spring.data.redis.*)");
        }
        List<Resolved> resolved = new ArrayList<>();
        for (Map.Entry<String, Region> entry : new TreeMap<>(regions).entrySet()) {
            String name = entry.getKey();
            Region config = entry.getValue() == null ? new Region(null, null) : entry.getValue();
            Optional<DataRedisProperties> redis = Optional.ofNullable(config.redis()).filter(RegionsProperties::namesNodes);
            if (redis.isEmpty() && !name.equals(region)) {
                throw new IllegalArgumentException("tollgate.regions." + name + ".redis.cluster.nodes: name that region's Redis Cluster nodes "
                        + "(host:port, comma-separated)");
            }
            Double share = config.defaultShare();
            if (share == null) {
                if (regions.size() > 1) {
                    throw new IllegalArgumentException("tollgate.regions." + name + ".default-share is missing: give every region its slice of "
                            + "the default split (e.g. 0.60 / 0.25 / 0.15), the same as that region's pods use");
                }
                share = 1.0;
            }
            resolved.add(new Resolved(name, share, redis));
        }
        return resolved;
    }

    private static boolean namesNodes(DataRedisProperties redis) {
        return redis.getCluster() != null && redis.getCluster().getNodes() != null
                && redis.getCluster().getNodes().stream().anyMatch(node -> node != null && !node.isBlank());
    }
}
