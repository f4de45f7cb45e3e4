package dev.tollgate.testsupport.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SharedRedisClusterIT {

    private static final RedisCluster cluster = RedisCluster.shared();
    private static RedisClusterClient client;
    private static StatefulRedisClusterConnection<String, String> connection;

    @BeforeAll
    static void connect() {
        client = RedisClusterClient.create(cluster.seedUris().stream().map(RedisURI::create).toList());
        connection = client.connect();
    }

    @AfterAll
    static void disconnect() {
        connection.close();
        client.shutdown();
    }

    @BeforeEach
    void isolate() {
        cluster.flushAll();
    }

    @Test
    void formsThreePrimariesCoveringAllSlots() {
        assertThat(cluster.nodes()).hasSize(3).allMatch(Node::isAlive);
        assertThat(cluster.primaries()).containsExactlyElementsOf(cluster.nodes());

        try (AdminClient admin = new AdminClient(null)) {
            for (Node node : cluster.nodes()) {
                String info = admin.call(node.port(), RedisCommands::clusterInfo);
                assertThat(info).contains("cluster_state:ok", "cluster_slots_assigned:16384", "cluster_known_nodes:3");
            }
        }
        assertThat(connection.sync().clusterSlots()).hasSize(3);
    }

    @Test
    void isTheSameClusterForTheWholeJvm() {
        assertThat(RedisCluster.shared()).isSameAs(cluster);
        assertThat(cluster.seedUris()).allMatch(uri -> uri.startsWith("redis://127.0.0.1:"));
    }

    @Test
    void runsATwoKeyScriptOnHashTaggedKeysThroughTheClusterClient() {
        RedisAdvancedClusterCommands<String, String> redis = connection.sync();
        String script = """
                redis.call('SET', KEYS[1], ARGV[1])
                redis.call('INCRBY', KEYS[2], ARGV[2])
                return {redis.call('GET', KEYS[1]), redis.call('GET', KEYS[2])}
                """;

        List<String> result = redis.eval(script, ScriptOutputType.MULTI,
                new String[] {"{route:42}:tokens", "{route:42}:stamp"}, "7", "5");

        assertThat(result).containsExactly("7", "5");
        assertThat(redis.get("{route:42}:stamp")).isEqualTo("5");
    }

    @Test
    void findsThePrimaryOwningAKey() {
        Set<Node> owners = List.of("a", "b", "c", "d", "e", "f", "g", "h").stream()
                .map(cluster::primaryForKey)
                .collect(Collectors.toSet());

        assertThat(owners).isSubsetOf(cluster.nodes()).hasSizeGreaterThan(1);
        Node owner = cluster.primaryForKey("{route:42}:tokens");
        int slot = SlotHash.getSlot("{route:42}:tokens");
        try (AdminClient admin = new AdminClient(null)) {
            assertThat(admin.view(owner.port()).ownerOf(slot)).get().extracting(ClusterView.Entry::id).isEqualTo(owner.nodeId());
        }
    }

    @Test
    void flushAllEmptiesEveryPrimary() {
        RedisAdvancedClusterCommands<String, String> redis = connection.sync();
        for (int i = 0; i < 30; i++) {
            redis.set("key-" + i, "v");
        }

        cluster.flushAll();

        assertThat(redis.dbsize()).isZero();
    }

    @Test
    void cannotBeClosedOrDisturbedByATest() {
        assertThatThrownBy(cluster::close).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> cluster.nodes().get(0).kill()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> cluster.nodes().get(0).freeze()).isInstanceOf(UnsupportedOperationException.class);
        cluster.awaitHealthy(Duration.ofSeconds(1));
    }
}
