package dev.tollgate.store.spring;

import io.lettuce.core.cluster.RedisClusterClient;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import java.util.List;

/**
 * The native Lettuce cluster client inside Spring Data Redis's connection factory, for the store, which
 * sets its own options on it (command timeout, no queueing while disconnected): the connection is the
 * one Spring Boot configures from {@code spring.data.redis.*}, the spend-safety is the store's.
 */
public final class ClusterClients {

    private ClusterClients() {
    }

    /**
     * The factory's client; starts the factory if it is not yet (which opens no connection). Fails, naming
     * the property, when the factory is not configured for a cluster.
     */
    public static RedisClusterClient of(LettuceConnectionFactory factory) {
        requireCluster(factory);
        if (!factory.isRunning()) {
            factory.start();
        }
        return (RedisClusterClient) factory.getRequiredNativeClient();
    }

    /**
     * A started factory with the same configuration as {@code factory} but a client of its own: the store
     * sets options client-wide, so two stores with different timeouts (checks and usage flushes) need two.
     * The caller destroys it.
     */
    public static LettuceConnectionFactory copyOf(LettuceConnectionFactory factory) {
        requireCluster(factory);
        LettuceConnectionFactory copy = new LettuceConnectionFactory(factory.getClusterConfiguration(), factory.getClientConfiguration());
        copy.afterPropertiesSet();
        if (!copy.isRunning()) {
            copy.start();
        }
        return copy;
    }

    /** The configured nodes as {@code host:port}, for log lines: no credential is in them. */
    public static List<String> nodes(LettuceConnectionFactory factory) {
        RedisClusterConfiguration cluster = factory.getClusterConfiguration();
        return cluster == null ? List.of() : cluster.getClusterNodes().stream().map(node -> node.getHost() + ":" + node.getPort()).toList();
    }

    /** Whether the factory talks to a Redis Cluster (Spring Boot builds a standalone one when no cluster nodes are set). */
    public static boolean isCluster(LettuceConnectionFactory factory) {
        return factory.getClusterConfiguration() != null;
    }

    private static void requireCluster(LettuceConnectionFactory factory) {
        if (!isCluster(factory)) {
            throw new IllegalStateException("spring.data.redis.cluster.nodes (SPRING_DATA_REDIS_CLUSTER_NODES) is not set: "
                    + "name the region's Redis Cluster nodes as host:port, comma-separated");
        }
    }
}
