package dev.tollgate.store;

import dev.tollgate.common.rule.Rule;
import dev.tollgate.store.loopback.LoopbackCluster;
import dev.tollgate.store.script.GroupReply;
import dev.tollgate.store.script.ScriptCall;
import dev.tollgate.store.script.Spend;
import dev.tollgate.store.script.SpendCall;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The contract through Lettuce's cluster client, the way a pod's warm-up reaches the loopback cluster: every script
 * call goes over RESP to {@link LoopbackCluster} and is answered by the in-memory store on a clock the test moves, so
 * what a warming pod's engine is told is what the in-memory store (and so the real scripts) would tell it.
 */
class LoopbackClusterContractTest extends CounterStoreContract {

    private static final AtomicLong micros = new AtomicLong(1_764_500_000_000_000L);
    private static LoopbackCluster cluster;
    private static RedisCounterStore store;

    @BeforeAll
    static void start() {
        cluster = LoopbackCluster.start(new InMemoryCounterStore(micros::get));
        store = RedisCounterStore.connect(RedisStoreSettings.of(List.of(cluster.uri())).withCommandTimeout(Duration.ofSeconds(2)));
    }

    @AfterAll
    static void stop() {
        store.close();
        cluster.close();
    }

    @Override
    CounterStore store() {
        return store;
    }

    @Override
    void pass(long ms) {
        micros.addAndGet(ms * 1000);
    }

    @Test
    void theClientSeesThePrimariesSplitTheSlotsAndSpendsOnEach() {
        assertThat(store.isConnected()).isTrue();
        assertThat(store.shards()).hasSize(LoopbackCluster.NODES);
        Set<String> spentOn = new HashSet<>();
        for (int i = 0; spentOn.size() < LoopbackCluster.NODES && i < 1_000; i++) {
            String key = "loopback_" + i;
            ScriptCall spend = SpendCall.of(key, List.of(new Spend(Rule.tokenBucket("r", "api", 10, 20), 1.0, 1)), 1, 1, 0);
            assertThat(GroupReply.parse(store.run(LuaScript.SPEND, spend.keys(), spend.args()).join(), 1).allowed()).isTrue();
            spentOn.add(store.shardOf(spend.keys().get(0)));
        }
        assertThat(spentOn).hasSize(LoopbackCluster.NODES);
    }

    @Test
    void aScriptItDoesNotRunAndAnUnknownCommandAreErrorsNotHangs() {
        try (RedisClusterClient client = RedisClusterClient.create(RedisURI.create(cluster.uri()));
             StatefulRedisClusterConnection<String, String> connection = client.connect()) {
            connection.setTimeout(Duration.ofSeconds(2));
            assertThatThrownBy(() -> connection.sync().scriptLoad("return 1")).hasMessageContaining("only Tollgate's own scripts");
            assertThatThrownBy(() -> connection.sync().get("k")).hasMessageContaining("unknown command");
            assertThat(connection.sync().ping()).isEqualTo("PONG");
        }
    }
}
