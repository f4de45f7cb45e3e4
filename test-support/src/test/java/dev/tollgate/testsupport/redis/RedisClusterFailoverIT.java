package dev.tollgate.testsupport.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RedisClusterFailoverIT {

    @Test
    void promotesTheReplicaOfAKilledPrimaryAndAnswersAgain() {
        try (RedisCluster cluster = RedisCluster.builder().replicas(true).nodeTimeoutMs(500).start()) {
            assertThat(cluster.nodes()).hasSize(6);
            assertThat(cluster.primaries()).hasSize(3);
            String key = "{bucket:7}:tokens";
            Node victim = cluster.primaryForKey(key);
            // Written straight to the primary and acknowledged by its replica, so the value survives the kill.
            try (AdminClient admin = new AdminClient(null)) {
                long acknowledged = admin.call(victim.port(), redis -> {
                    redis.set(key, "41");
                    return redis.waitForReplication(1, 2000);
                });
                assertThat(acknowledged).isEqualTo(1);
            }

            long killedAt = System.nanoTime();
            victim.kill();
            Node promoted = cluster.awaitPromotedReplicaFor(victim, Duration.ofSeconds(15));
            Duration failover = Duration.ofNanos(System.nanoTime() - killedAt);

            assertThat(victim.isAlive()).isFalse();
            assertThat(failover).isLessThan(Duration.ofSeconds(10));
            assertThat(promoted.isPrimary()).isTrue();
            assertThat(cluster.primaryForKey(key)).isEqualTo(promoted);
            assertThat(cluster.primaries()).hasSize(3).contains(promoted).doesNotContain(victim);
            assertThat(clusterClientIncrements(cluster, key)).isEqualTo(42);
        }
    }

    private static long clusterClientIncrements(RedisCluster cluster, String key) {
        RedisClusterClient client = RedisClusterClient.create(cluster.seedUris().stream().map(RedisURI::create).toList());
        client.setOptions(ClusterClientOptions.builder()
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder().enableAllAdaptiveRefreshTriggers().build())
                .build());
        try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
            return connection.sync().incr(key);
        } finally {
            client.shutdown();
        }
    }
}
