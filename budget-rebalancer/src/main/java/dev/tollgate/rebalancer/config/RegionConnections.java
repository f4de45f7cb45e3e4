package dev.tollgate.rebalancer.config;

import dev.tollgate.store.spring.BundleTls;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.resource.ClientResources;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import java.util.ArrayList;
import java.util.List;

/**
 * Spring Data Redis connection factories for the other regions' clusters, built from each region's
 * {@code tollgate.regions} entry's {@code redis} as Spring Boot builds its own from {@code spring.data.redis}
 * (Boot makes only one): cluster nodes, ACL user and password, TLS (an SSL bundle, or the JVM's
 * truststore), timeouts; on Boot's Lettuce resources. Owns what it built and destroys it on close.
 */
final class RegionConnections implements AutoCloseable {

    private final ClientResources resources;
    private final SslBundles bundles;
    private final List<LettuceConnectionFactory> built = new ArrayList<>();

    RegionConnections(ClientResources resources, SslBundles bundles) {
        this.resources = resources;
        this.bundles = bundles;
    }

    /**
     * A started factory (no connection is opened until the first read).
     *
     * @param property the region's properties as given ({@code tollgate.regions.eu-west}), for messages
     */
    LettuceConnectionFactory factory(String property, DataRedisProperties redis) {
        List<String> nodes = redis.getCluster().getNodes().stream().filter(node -> node != null && !node.isBlank()).map(String::trim).toList();
        RedisClusterConfiguration cluster = new RedisClusterConfiguration(nodes);
        if (hasText(redis.getUsername())) {
            cluster.setUsername(redis.getUsername());
        }
        if (hasText(redis.getPassword())) {
            cluster.setPassword(RedisPassword.of(redis.getPassword()));
        }
        ClusterClientOptions.Builder options = ClusterClientOptions.builder()
                .timeoutOptions(TimeoutOptions.enabled())
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder().enableAllAdaptiveRefreshTriggers().build());
        if (redis.getConnectTimeout() != null) {
            options.socketOptions(SocketOptions.builder().connectTimeout(redis.getConnectTimeout()).build());
        }
        LettuceClientConfiguration.LettuceClientConfigurationBuilder client = LettuceClientConfiguration.builder().clientResources(resources);
        if (redis.getTimeout() != null) {
            client.commandTimeout(redis.getTimeout());
        }
        DataRedisProperties.Ssl ssl = redis.getSsl();
        if (ssl.isEnabled() || hasText(ssl.getBundle())) {
            client.useSsl();
            if (hasText(ssl.getBundle())) {
                options.sslOptions(sslOptions(property, ssl.getBundle()));
            }
        }
        LettuceConnectionFactory factory = new LettuceConnectionFactory(cluster, client.clientOptions(options.build()).build());
        factory.afterPropertiesSet();
        if (!factory.isRunning()) {
            factory.start();
        }
        built.add(factory);
        return factory;
    }

    private SslOptions sslOptions(String property, String name) {
        if (bundles == null) {
            throw new IllegalStateException(property + ".redis.ssl.bundle names " + name + " but no SSL bundles are configured");
        }
        // read again for every connection: a CA the bundle reloads (reload-on-update) needs no restart
        return BundleTls.following(bundles, name);
    }

    private static boolean hasText(String value) {
        return value != null && !value.isBlank();
    }

    @Override
    public void close() {
        built.forEach(LettuceConnectionFactory::destroy);
    }
}
