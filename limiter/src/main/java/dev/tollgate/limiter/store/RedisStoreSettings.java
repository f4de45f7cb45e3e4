package dev.tollgate.limiter.store;

import java.time.Duration;
import java.util.List;

/**
 * How to reach a region's Redis Cluster.
 *
 * @param seeds           one or more {@code redis://host:port} (or {@code rediss://}) URIs of cluster nodes
 * @param username        ACL user, or null for the default user
 * @param password        AUTH password or ACL secret, or null; never logged
 * @param commandTimeout  how long one script may take before the check counts it as a timeout (design: 5 ms)
 * @param topologyRefresh how often to re-read the cluster's slot map even when nothing looks wrong;
 *                        adaptive refresh (MOVED, reconnects) reacts faster to a failover
 */
public record RedisStoreSettings(
        List<String> seeds,
        String username,
        String password,
        Duration commandTimeout,
        Duration topologyRefresh) {

    public RedisStoreSettings {
        if (seeds == null || seeds.isEmpty()) {
            throw new IllegalArgumentException("tollgate.redis.seeds: name at least one redis://host:port of the cluster");
        }
        seeds = List.copyOf(seeds);
        commandTimeout = commandTimeout == null ? Duration.ofMillis(5) : commandTimeout;
        topologyRefresh = topologyRefresh == null ? Duration.ofSeconds(10) : topologyRefresh;
        if (commandTimeout.isNegative() || commandTimeout.isZero()) {
            throw new IllegalArgumentException("tollgate.redis.command-timeout must be positive, was " + commandTimeout);
        }
    }

    public static RedisStoreSettings of(List<String> seeds) {
        return new RedisStoreSettings(seeds, null, null, null, null);
    }

    public RedisStoreSettings withCommandTimeout(Duration timeout) {
        return new RedisStoreSettings(seeds, username, password, timeout, topologyRefresh);
    }

    public RedisStoreSettings withCredentials(String user, String secret) {
        return new RedisStoreSettings(seeds, user, secret, commandTimeout, topologyRefresh);
    }

    @Override
    public String toString() {
        return "RedisStoreSettings[seeds=" + seeds + ", username=" + username + ", password=" + (password == null ? "none" : "****")
                + ", commandTimeout=" + commandTimeout + ", topologyRefresh=" + topologyRefresh + "]";
    }
}
