package dev.tollgate.store;

import dev.tollgate.common.rule.Rule;
import dev.tollgate.store.script.GroupReply;
import dev.tollgate.store.script.Refunds;
import dev.tollgate.store.script.ScriptCall;
import dev.tollgate.store.script.Spend;
import dev.tollgate.store.script.SpendCall;
import dev.tollgate.testsupport.redis.RedisCluster;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The contract on a real Redis Cluster, where the scripts themselves run. */
class RedisCounterStoreContractIT extends CounterStoreContract {

    private static RedisCounterStore store;

    @BeforeAll
    static void connect() {
        store = RedisCounterStore.connect(RedisStoreSettings.of(RedisCluster.shared().seedUris()).withCommandTimeout(Duration.ofSeconds(2)));
    }

    @AfterAll
    static void close() {
        store.close();
    }

    @Override
    CounterStore store() {
        return store;
    }

    @Override
    void pass(long ms) throws InterruptedException {
        Thread.sleep(ms);
    }

    /**
     * A log member was named by the store's microsecond, with '+' appended on a collision, yet a
     * refund removes the members its call was told: two calls of one microsecond on one log both named the
     * first's member, and once both were refunded the second's stayed for good. A microsecond is shared only
     * when the store's clock steps back (a promoted replica's clock behind the old primary's), so the spend
     * script runs here under a shim whose TIME stands still; the rest of it is the script as shipped.
     */
    @Test
    void twoSpendsOfOneMicrosecondNameMembersOfTheirOwnAndTheirRefundsLeaveNothing() throws IOException {
        String key = "contract_l5_" + UUID.randomUUID().toString().substring(0, 8);
        Spend login = new Spend(Rule.slidingLog("login", "auth", 10, 60), 1.0, 1);
        ScriptCall spend = SpendCall.of(key, List.of(login), 1, 1, 0);
        String log = spend.keys().get(0);
        String stoppedClock;
        try (InputStream script = RedisCounterStore.class.getResourceAsStream("/lua/spend.lua")) {
            stoppedClock = "local redis = setmetatable({ call = function(command, ...) if command == 'TIME' then "
                    + "return { '1700000000', '123456' } end return _G.redis.call(command, ...) end }, { __index = _G.redis })\n"
                    + new String(script.readAllBytes(), StandardCharsets.UTF_8);
        }
        try (RedisClusterClient admin = RedisClusterClient.create(RedisURI.create(RedisCluster.shared().seedUris().get(0)));
             StatefulRedisClusterConnection<String, String> connection = admin.connect()) {
            String[] keys = spend.keys().toArray(String[]::new);
            String[] args = spend.args().toArray(String[]::new);
            List<GroupReply> spent = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                List<Long> reply = connection.sync().eval(stoppedClock, ScriptOutputType.MULTI, keys, args);
                spent.add(GroupReply.parse(reply, keys.length));
            }
            assertThat(spent).allSatisfy(reply -> assertThat(reply.allowed()).isTrue());
            assertThat(connection.sync().zcard(log)).isEqualTo(2);

            for (GroupReply reply : spent) {
                store.run(LuaScript.REFUND, spend.keys(), Refunds.of(spend, List.of(login), reply).args()).join();
            }
            assertThat(connection.sync().zrange(log, 0, -1)).as("both refunded: no member of either is left").isEmpty();
            connection.sync().del(log);
        }
    }

    private static GroupReply call(ScriptCall call) {
        return GroupReply.parse(store.run(call.script(), call.keys(), call.args()).join(), call.keys().size());
    }
}
