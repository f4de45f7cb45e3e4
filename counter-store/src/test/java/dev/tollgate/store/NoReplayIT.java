package dev.tollgate.store;

import dev.tollgate.common.rule.Limit;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.store.script.Spend;
import dev.tollgate.store.script.ScriptCall;
import dev.tollgate.store.script.SpendCall;
import dev.tollgate.store.key.RedisKeys;
import dev.tollgate.testsupport.redis.Node;
import dev.tollgate.testsupport.redis.RedisCluster;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A spend whose reply was lost must not be applied twice. By default Lettuce re-sends the commands
 * that were in flight when a connection dropped; with a script that spends tokens, that is a lost
 * update in disguise. Here the reply of an executed spend is swallowed, the connection is cut, the
 * client reconnects, and the bucket must show exactly one spend.
 */
class NoReplayIT {

    private static RedisCluster cluster;

    @BeforeAll
    static void start() {
        cluster = RedisCluster.builder().nodeTimeoutMs(2_000).start();
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Test
    void aSpendInFlightWhenTheConnectionDropsIsNeverSentAgain() throws Exception {
        String key = "acct_replay";
        String bucket = RedisKeys.limit(key, "r");
        Node owner = cluster.primaryForKey(bucket);

        try (TcpProxy proxy = new TcpProxy(owner.port());
             RedisClient direct = RedisClient.create(owner.uri());
             StatefulRedisConnection<String, String> connection = direct.connect()) {
            RedisCommands<String, String> node = connection.sync();
            // the cluster now tells clients to reach this node through the proxy
            node.configSet("cluster-announce-port", Integer.toString(proxy.port()));
            awaitAnnounced(proxy.port());

            try (RedisCounterStore store = RedisCounterStore.connect(
                    RedisStoreSettings.of(List.of("redis://127.0.0.1:" + proxy.port())).withCommandTimeout(Duration.ofSeconds(3)))) {
                ScriptCall call = SpendCall.of(key, List.of(new Spend(Rule.of("r", "d", new Limit.TokenBucket(1, 86_400, 100)), 1.0, 1)), 1, 1, 0);
                // warm up: the script is loaded and the node's connection is open
                store.run(call.script(), call.keys(), call.args()).get(5, TimeUnit.SECONDS);
                assertThat(node.hget(bucket, "tokens_milli")).isEqualTo("99000");

                proxy.swallowReplies(true);
                CompletableFuture<List<Long>> lost = store.run(call.script(), call.keys(), call.args());
                await().atMost(Duration.ofSeconds(5)).until(() -> "98000".equals(node.hget(bucket, "tokens_milli")));
                proxy.swallowReplies(false);
                proxy.cutConnections();

                assertThat(lost).failsWithin(Duration.ofSeconds(5));
                // the client reconnects and works again...
                await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() ->
                        store.run(call.script(), call.keys(), call.args()).get(1, TimeUnit.SECONDS) != null);
                // ...and the swallowed spend was applied once: 3 spends in all (a replay would make it 4)
                Thread.sleep(500);
                long tokens = Long.parseLong(node.hget(bucket, "tokens_milli"));
                assertThat(tokens).isEqualTo(97_000L);
            } finally {
                node.configSet("cluster-announce-port", "0");
            }
        }
    }

    private static void awaitAnnounced(int port) {
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            for (Node other : cluster.primaries()) {
                try (RedisClient client = RedisClient.create(other.uri());
                     StatefulRedisConnection<String, String> c = client.connect()) {
                    if (!c.sync().clusterSlots().toString().contains(Integer.toString(port))) {
                        return false;
                    }
                }
            }
            return true;
        });
    }
}
