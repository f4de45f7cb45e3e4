package dev.tollgate.store;

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
 * @param connectTimeout  how long opening a connection may take: the TCP connect, and separately the
 *                        handshake (HELLO/AUTH) and a slot-map read. Never the command timeout: a 5 ms
 *                        handshake fails on a cold JVM, and a pod must not miss its store for that
 */
public record RedisStoreSettings(
        List<String> seeds,
        String username,
        String password,
        Duration commandTimeout,
        Duration topologyRefresh,
        Duration connectTimeout) {

    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(1);

    public RedisStoreSettings {
        if (seeds == null || seeds.isEmpty()) {
            throw new IllegalArgumentException("the store's seeds: name at least one redis://host:port of the cluster");
        }
        seeds = List.copyOf(seeds);
        commandTimeout = commandTimeout == null ? Duration.ofMillis(5) : commandTimeout;
        topologyRefresh = topologyRefresh == null ? Duration.ofSeconds(10) : topologyRefresh;
        connectTimeout = connectTimeout == null ? DEFAULT_CONNECT_TIMEOUT : connectTimeout;
        if (commandTimeout.isNegative() || commandTimeout.isZero()) {
            throw new IllegalArgumentException("the store's command timeout must be positive, was " + commandTimeout);
        }
        if (connectTimeout.isNegative() || connectTimeout.isZero()) {
            throw new IllegalArgumentException("the store's connect timeout must be positive, was " + connectTimeout);
        }
    }

    /** With the default connect timeout (for callers that predate it). */
    public RedisStoreSettings(List<String> seeds, String username, String password, Duration commandTimeout, Duration topologyRefresh) {
        this(seeds, username, password, commandTimeout, topologyRefresh, null);
    }

    public static RedisStoreSettings of(List<String> seeds) {
        return new RedisStoreSettings(seeds, null, null, null, null, null);
    }

    public RedisStoreSettings withCommandTimeout(Duration timeout) {
        return new RedisStoreSettings(seeds, username, password, timeout, topologyRefresh, connectTimeout);
    }

    public RedisStoreSettings withConnectTimeout(Duration timeout) {
        return new RedisStoreSettings(seeds, username, password, commandTimeout, topologyRefresh, timeout);
    }

    public RedisStoreSettings withCredentials(String user, String secret) {
        return new RedisStoreSettings(seeds, user, secret, commandTimeout, topologyRefresh, connectTimeout);
    }

    /** Seeds may carry {@code user:secret@}: printed without it, like the password. */
    @Override
    public String toString() {
        return "RedisStoreSettings[seeds=" + seeds.stream().map(RedisCounterStore::redact).toList() + ", username=" + username
                + ", password=" + (password == null ? "none" : "****") + ", commandTimeout=" + commandTimeout
                + ", topologyRefresh=" + topologyRefresh + ", connectTimeout=" + connectTimeout + "]";
    }
}
