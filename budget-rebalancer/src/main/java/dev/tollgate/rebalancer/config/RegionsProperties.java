package dev.tollgate.rebalancer.config;

import dev.tollgate.limiter.store.RedisStoreSettings;
import dev.tollgate.rebalancer.usage.RegionEndpoint;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The regions whose usage the rebalancer reads, each with its Redis Cluster and its slice of the
 * default split:
 *
 * <pre>
 * tollgate.regions.us-east.seeds=rediss://redis.us-east.internal:6379
 * tollgate.regions.us-east.default-share=0.60
 * tollgate.regions.eu-west.seeds=...      (default-share 0.25)
 * tollgate.regions.ap-south.seeds=...     (default-share 0.15)
 * </pre>
 *
 * The instance's own region ({@code tollgate.region}, e.g. {@code TOLLGATE_REGION}) may leave out its
 * seeds: they default to {@code tollgate.redis.*}, the same {@code TOLLGATE_REDIS_*} variables its
 * pods use. With no {@code tollgate.regions} at all there is one region, its share always 1.
 *
 * <p>The default split must be the one the pods use: a pod applies its {@code tollgate.region.default-share}
 * to every key without a budget row, so the two must agree for the shares of such a key to sum to 1.
 *
 * @param region  this instance's region, or empty
 * @param redis   this instance's region's Redis Cluster
 * @param regions every region by the name its budget rows carry
 */
@ConfigurationProperties("tollgate")
public record RegionsProperties(String region, Redis redis, Map<String, Region> regions) {

    public RegionsProperties {
        region = region == null || region.isBlank() ? null : region.trim();
        redis = redis == null ? new Redis(null, null, null) : redis;
        regions = regions == null ? Map.of() : regions;
    }

    /** @param seeds redis:// or rediss:// URIs of the cluster's nodes, comma-separated in a variable */
    public record Redis(List<String> seeds, String username, String password) {

        public Redis {
            seeds = seeds == null ? List.of() : seeds.stream().filter(s -> s != null && !s.isBlank()).map(String::trim).toList();
            username = username == null || username.isBlank() ? null : username;
            password = password == null || password.isBlank() ? null : password;
        }

        @Override
        public String toString() {
            return "Redis[seeds=" + seeds + ", username=" + username + ", password=" + (password == null ? "none" : "****") + "]";
        }
    }

    /** @param defaultShare the region's slice of the default split; required with more than one region */
    public record Region(List<String> seeds, String username, String password, Double defaultShare) {

        public Region {
            seeds = seeds == null ? List.of() : seeds.stream().filter(s -> s != null && !s.isBlank()).map(String::trim).toList();
            username = username == null || username.isBlank() ? null : username;
            password = password == null || password.isBlank() ? null : password;
        }

        @Override
        public String toString() {
            return "Region[seeds=" + seeds + ", username=" + username + ", password=" + (password == null ? "none" : "****")
                    + ", defaultShare=" + defaultShare + "]";
        }
    }

    /** A region resolved: its endpoint and its default share. */
    public record Resolved(RegionEndpoint endpoint, double defaultShare) {
    }

    /**
     * Every region, sorted by name (so the order, and which region absorbs rounding, never depends on how
     * the properties were given), with its Redis settings; fails with the property to fix.
     */
    public List<Resolved> resolve(Duration commandTimeout) {
        if (regions.isEmpty()) {
            String name = region == null ? "local" : region;
            if (redis.seeds().isEmpty()) {
                throw new IllegalArgumentException("tollgate.redis.seeds (TOLLGATE_REDIS_SEEDS): name the region's Redis Cluster, "
                        + "or list every region under tollgate.regions.<name>.seeds");
            }
            return List.of(new Resolved(endpoint(name, redis.seeds(), redis.username(), redis.password(), commandTimeout), 1.0));
        }
        if (region != null && !regions.containsKey(region)) {
            throw new IllegalArgumentException("tollgate.region is " + region + " but tollgate.regions names only " + regions.keySet()
                    + ": add tollgate.regions." + region + ".default-share (its seeds default to tollgate.redis.seeds)");
        }
        List<Resolved> resolved = new ArrayList<>();
        for (Map.Entry<String, Region> entry : new TreeMap<>(regions).entrySet()) {
            String name = entry.getKey();
            Region config = entry.getValue() == null ? new Region(null, null, null, null) : entry.getValue();
            boolean own = name.equals(region) && config.seeds().isEmpty();
            List<String> seeds = own ? redis.seeds() : config.seeds();
            if (seeds.isEmpty()) {
                throw new IllegalArgumentException("tollgate.regions." + name + ".seeds: name at least one redis://host:port of that region's cluster");
            }
            Double share = config.defaultShare();
            if (share == null) {
                if (regions.size() > 1) {
                    throw new IllegalArgumentException("tollgate.regions." + name + ".default-share is missing: give every region its slice of "
                            + "the default split (e.g. 0.60 / 0.25 / 0.15), the same as that region's pods use");
                }
                share = 1.0;
            }
            resolved.add(new Resolved(endpoint(name, seeds, own ? redis.username() : config.username(),
                    own ? redis.password() : config.password(), commandTimeout), share));
        }
        return resolved;
    }

    private static RegionEndpoint endpoint(String name, List<String> seeds, String username, String password, Duration timeout) {
        return new RegionEndpoint(name, new RedisStoreSettings(seeds, username, password, timeout, null));
    }
}
