package dev.tollgate.testsupport.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The path a machine without redis-server on PATH takes: the binary shipped inside embedded-redis. */
class EmbeddedRedisBinaryIT {

    @AfterEach
    void clearProperty() {
        System.clearProperty(RedisBinary.PROPERTY);
    }

    @Test
    void formsAClusterWithTheBinaryFromTheEmbeddedRedisJar() {
        System.setProperty(RedisBinary.PROPERTY, RedisBinary.EMBEDDED);

        try (RedisCluster cluster = RedisCluster.builder().start(); AdminClient admin = new AdminClient(null)) {
            String info = admin.call(cluster.nodes().get(0).port(), redis -> redis.info("server"));
            assertThat(AdminClient.field(info, "redis_version")).startsWith("6.2.");
            String clusterInfo = admin.call(cluster.nodes().get(2).port(), RedisCommands::clusterInfo);
            assertThat(clusterInfo).contains("cluster_state:ok");
            assertThat(cluster.primaries()).hasSize(3);
        }
    }
}
