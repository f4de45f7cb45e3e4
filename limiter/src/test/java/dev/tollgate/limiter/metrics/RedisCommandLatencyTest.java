package dev.tollgate.limiter.metrics;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.event.DefaultEventBus;
import io.lettuce.core.protocol.CommandType;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.scheduler.Schedulers;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class RedisCommandLatencyTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final RedisCommandLatency latency = new RedisCommandLatency(registry);
    private final InetSocketAddress local = InetSocketAddress.createUnresolved("10.0.0.9", 51_234);

    @Test
    void timesEachCommandByNodeAndCommandTypeInTheEnginesBuckets() {
        InetSocketAddress shard = new InetSocketAddress("127.0.0.1", 7000);
        latency.recordCommandLatency(local, shard, CommandType.EVALSHA, 100_000, 400_000);
        latency.recordCommandLatency(local, shard, CommandType.EVALSHA, 100_000, 2_000_000);
        latency.recordCommandLatency(local, new InetSocketAddress("127.0.0.1", 7001), CommandType.PING, 10_000, 20_000);

        Timer evalsha = registry.get(RedisCommandLatency.COMMANDS).tag("node", "127.0.0.1:7000").tag("command", "EVALSHA").timer();
        assertThat(evalsha.count()).isEqualTo(2);
        assertThat(evalsha.totalTime(TimeUnit.MICROSECONDS)).isEqualTo(2_400);
        assertThat(evalsha.getId().getTags()).as("no local address, no unbounded tag").hasSize(2);
        CountAtBucket[] buckets = evalsha.takeSnapshot().histogramCounts();
        assertThat(buckets).hasSize(LimiterMetrics.LATENCY_BUCKETS.length);
        assertThat(count(buckets, 500_000)).as("<= 500us").isEqualTo(1);
        assertThat(count(buckets, 2_000_000)).as("<= 2ms").isEqualTo(2);
        assertThat(registry.get(RedisCommandLatency.COMMANDS).tag("node", "127.0.0.1:7001").tag("command", "PING").timer().count()).isEqualTo(1);
    }

    @Test
    void namesTheNodeAsTheClientAddressedItWithoutALookup() {
        assertThat(RedisCommandLatency.node(InetSocketAddress.createUnresolved("redis-1.eu-west.internal", 6379)))
                .isEqualTo("redis-1.eu-west.internal:6379");
        assertThat(RedisCommandLatency.node(new InetSocketAddress("127.0.0.1", 7000))).isEqualTo("127.0.0.1:7000");
    }

    @Test
    void dropsTheSeriesOfANodeThatLeftTheCluster() {
        latency.recordCommandLatency(local, new InetSocketAddress("127.0.0.1", 7000), CommandType.EVALSHA, 1, 1);
        latency.recordCommandLatency(local, new InetSocketAddress("127.0.0.1", 7001), CommandType.EVALSHA, 1, 1);
        DefaultEventBus events = new DefaultEventBus(Schedulers.immediate());
        Disposable following = latency.follow(events);

        events.publish(new ClusterTopologyChangedEvent(List.of(node(7000), node(7001)), List.of(node(7001), node(7002))));

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(registry.find(RedisCommandLatency.COMMANDS).tag("node", "127.0.0.1:7000").timers()).isEmpty());
        assertThat(registry.find(RedisCommandLatency.COMMANDS).tag("node", "127.0.0.1:7001").timers()).hasSize(1);

        // back after a failover: its series again, counting from zero
        latency.recordCommandLatency(local, new InetSocketAddress("127.0.0.1", 7000), CommandType.EVALSHA, 1, 1);
        assertThat(registry.get(RedisCommandLatency.COMMANDS).tag("node", "127.0.0.1:7000").timer().count()).isEqualTo(1);
        following.dispose();
    }

    private static RedisClusterNode node(int port) {
        RedisClusterNode node = new RedisClusterNode();
        node.setUri(RedisURI.create("127.0.0.1", port));
        return node;
    }

    private static double count(CountAtBucket[] buckets, long nanos) {
        for (CountAtBucket bucket : buckets) {
            if (bucket.bucket() == nanos) {
                return bucket.count();
            }
        }
        throw new AssertionError("no bucket at " + nanos + " ns");
    }
}
