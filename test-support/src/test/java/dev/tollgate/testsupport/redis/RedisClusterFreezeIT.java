package dev.tollgate.testsupport.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RedisClusterFreezeIT {

    @Test
    void aFrozenNodeAnswersNothingAndRejoinsAfterUnfreeze() throws InterruptedException {
        String password = "s3cret pass";
        try (RedisCluster cluster = RedisCluster.builder().nodeTimeoutMs(500).password(password).start();
                AdminClient admin = new AdminClient(password)) {
            assertThat(cluster.seedUris()).allMatch(uri -> uri.startsWith("redis://:s3cret%20pass@127.0.0.1:"));
            assertThat(clusterClientRoundTrip(cluster)).isEqualTo("v");
            Node node = cluster.nodes().get(1);

            node.freeze();
            assertThat(node.isFrozen()).isTrue();
            assertThat(node.isAlive()).isTrue();
            assertThatThrownBy(() -> admin.call(node.port(), RedisCommands::ping)).isInstanceOf(RedisException.class);
            // Longer than the node timeout, so that its peers flag it as failed and must clear the flag.
            Thread.sleep(1500);

            node.unfreeze();
            String pong = admin.call(node.port(), RedisCommands::ping);
            assertThat(pong).isEqualTo("PONG");
            cluster.awaitHealthy(Duration.ofSeconds(10));
            assertThat(node.isPrimary()).isTrue();
        }
    }

    @Test
    void refusesClientsWithoutThePassword() {
        try (RedisCluster cluster = RedisCluster.builder().password("pw").start();
                AdminClient anonymous = new AdminClient(null)) {
            assertThatThrownBy(() -> anonymous.call(cluster.nodes().get(0).port(), RedisCommands::ping))
                    .isInstanceOf(RedisException.class);
        }
    }

    private static String clusterClientRoundTrip(RedisCluster cluster) {
        RedisClusterClient client = RedisClusterClient.create(cluster.seedUris().stream().map(RedisURI::create).toList());
        try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
            connection.sync().set("k", "v");
            return connection.sync().get("k");
        } finally {
            client.shutdown();
        }
    }
}
