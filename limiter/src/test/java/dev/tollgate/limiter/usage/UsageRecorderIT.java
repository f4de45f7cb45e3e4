package dev.tollgate.limiter.usage;

import dev.tollgate.store.key.UsageKeys;
import dev.tollgate.store.RedisCounterStore;
import dev.tollgate.store.RedisStoreSettings;
import dev.tollgate.testsupport.redis.RedisCluster;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.awaitility.Awaitility.await;

/** The recorder against a real Redis Cluster: what lands in the window hashes, and a Redis that is not there. */
class UsageRecorderIT {

    private static final RedisCluster cluster = RedisCluster.shared();
    private static RedisCounterStore reader;

    @BeforeAll
    static void connect() {
        reader = RedisCounterStore.connect(RedisStoreSettings.of(cluster.seedUris()).withCommandTimeout(Duration.ofSeconds(2)));
    }

    @AfterAll
    static void close() {
        reader.close();
    }

    private static RedisAdvancedClusterCommands<String, String> redis() {
        return reader.connection().sync();
    }

    /** Every field of the window, across its shards. */
    private static Map<String, String> window(long start) {
        Map<String, String> fields = new HashMap<>();
        for (String name : UsageKeys.windows(start)) {
            fields.putAll(redis().hgetall(name));
        }
        return fields;
    }

    @Test
    void writesEachIntervalsCountsIntoTheShardedWindowHashesWithATimeToLive() {
        String rule = "growth-global";
        String a = "acct_" + UUID.randomUUID().toString().substring(0, 8);
        String b = "user:{" + a + "}";
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        UsageSettings settings = UsageSettings.DEFAULTS.withFlushInterval(Duration.ofMillis(200));
        long firstWindow = UsageKeys.windowStart(System.currentTimeMillis());

        try (UsageRecorder recorder = UsageRecorder.start(RedisStoreSettings.of(cluster.seedUris()), settings, registry)) {
            for (int i = 0; i < 1_000; i++) {
                recorder.admitted(rule, a, 1);
            }
            recorder.admitted(rule, b, 3);
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                Map<String, Long> sums = new HashMap<>();
                for (long start : List.of(firstWindow, firstWindow + UsageKeys.WINDOW_SECONDS)) {
                    window(start).forEach((field, value) -> sums.merge(field, Long.parseLong(value), Long::sum));
                }
                assertThat(sums).containsEntry(rule + ":" + a, 1_000L).containsEntry(rule + ":" + b, 3L);
            });
        }

        String hash = UsageKeys.windowOf(rule, a, firstWindow);
        if (redis().exists(hash) == 0) {
            hash = UsageKeys.windowOf(rule, a, firstWindow + UsageKeys.WINDOW_SECONDS);
        }
        assertThat(redis().pttl(hash)).isBetween(1L, UsageKeys.RETENTION.toMillis());
        assertThat(registry.find(UsageMetrics.KEYS_FLUSHED).counter().count()).isGreaterThanOrEqualTo(2);
    }

    @Test
    void keepsCountingWithoutThrowingWhenRedisCannotBeReached() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        UsageSettings settings = UsageSettings.DEFAULTS.withFlushInterval(Duration.ofMillis(100));

        try (UsageRecorder recorder = UsageRecorder.start(RedisStoreSettings.of(List.of("redis://127.0.0.1:" + closedPort)), settings, registry)) {
            assertThatCode(() -> {
                for (int i = 0; i < 10_000; i++) {
                    recorder.admitted("growth-global", "acct_" + (i % 100), 1);
                }
            }).doesNotThrowAnyException();

            await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                    assertThat(registry.find(UsageMetrics.FLUSHES).tag("outcome", "failed").counter().count()).isGreaterThanOrEqualTo(1));
            assertThat(registry.find(UsageMetrics.KEYS_DROPPED).tag("reason", "flush_failed").counter().count()).isGreaterThanOrEqualTo(100);
        }
    }
}
