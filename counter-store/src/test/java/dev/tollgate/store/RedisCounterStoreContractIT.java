package dev.tollgate.store;

import dev.tollgate.testsupport.redis.RedisCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.time.Duration;

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
}
