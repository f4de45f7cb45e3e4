package dev.tollgate.store;

import dev.tollgate.testsupport.redis.Node;
import dev.tollgate.testsupport.redis.RedisCluster;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Transports;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link Lanes}: on the owner's loops, a script call sent from a loop is answered on that loop, to every primary, and
 * still after every connection was killed and the lanes reconnected; a call from any other thread is answered through
 * the shared connection; closing the store closes the lanes too.
 */
class LanesIT {

    private static final LuaScript HEARTBEAT = LuaScript.load("pod_heartbeat");

    private static RedisCluster cluster;
    private static EventLoopGroup owners;

    @BeforeAll
    static void start() {
        // Lettuce picks native epoll where its library is on the class path: this module's tests have only NIO
        assumeThat(Transports.socketChannelClass()).isEqualTo(NioSocketChannel.class);
        cluster = RedisCluster.builder().start();
        owners = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    }

    @AfterAll
    static void stop() {
        if (owners != null) {
            owners.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aCallFromALoopIsAnsweredOnThatLoopBeforeAndAfterItsConnectionsAreKilled() throws Exception {
        try (OnOwnersLoops lettuce = OnOwnersLoops.of(cluster.seedUris());
             RedisCounterStore store = RedisCounterStore.connect(lettuce.client(), List.of(), new ClientSettings(Duration.ofSeconds(2), null).withLanes())) {
            assertThat(store.awaitConnected(Duration.ofSeconds(20))).isTrue();
            List<String> keys = aKeyOnEachPrimary();

            assertEachCallAnsweredOnItsLoop(store, keys);
            for (String key : keys) {
                assertThat(store.run(HEARTBEAT, List.of(key), List.of("pod", "3000")).get(5, TimeUnit.SECONDS))
                        .as("a call from a thread of no loop, on the shared connection").isNotEmpty();
            }

            long killed = cluster.nodes().stream().mapToLong(Node::killClients).sum();
            assertThat(killed).as("connections the nodes dropped").isGreaterThanOrEqualTo(3 * 3);
            await().atMost(Duration.ofSeconds(20)).ignoreExceptions().untilAsserted(() -> assertEachCallAnsweredOnItsLoop(store, keys));
        }
        assertThat(owners.isShuttingDown()).as("the owner's loops after the client and its resources shut down").isFalse();
    }

    @Test
    void aStoreThatAsksForNoLanesLeavesCallsOnTheSharedConnection() throws Exception {
        try (OnOwnersLoops lettuce = OnOwnersLoops.of(cluster.seedUris());
             RedisCounterStore store = RedisCounterStore.connect(lettuce.client(), List.of(), new ClientSettings(Duration.ofSeconds(2), null))) {
            assertThat(store.awaitConnected(Duration.ofSeconds(20))).isTrue();
            // each primary's one channel is on one loop: calls from the other loop are answered there
            Map<String, String> loops = new HashMap<>();
            for (String key : aKeyOnEachPrimary()) {
                for (EventLoop loop : loops()) {
                    loops.merge(key, answeredOn(store, loop, key), (a, b) -> a.equals(b) ? a : "both");
                }
            }
            assertThat(loops.values()).as("where each primary's calls were answered").doesNotContain("both");
        }
    }

    /** A pod that connected while its cluster failed over: its lanes could not open then, and open once they can. */
    @Test
    void aLaneThatCannotOpenIsTriedAgainUntilItOpens() throws Exception {
        List<Integer> ports = RedisCluster.reservePorts(3);
        ScheduledExecutorService retries = Executors.newSingleThreadScheduledExecutor();
        Lanes lanes = new Lanes(new PinnedLoops(owners), retries);
        try (OnOwnersLoops lettuce = OnOwnersLoops.of(ports.stream().map(port -> "redis://127.0.0.1:" + port).toList())) {
            RedisClusterClient client = lettuce.client();
            lanes.open(client).get(10, TimeUnit.SECONDS);
            for (EventLoop loop : loops()) {
                assertThat(loop.submit(lanes::here).get(5, TimeUnit.SECONDS)).as("a lane before its cluster answers").isNull();
            }
            try (RedisCluster late = RedisCluster.builder().ports(ports).start()) {
                // the store's own connection reads the slot map; the lanes share it
                await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> {
                    client.refreshPartitions();
                    return client.getPartitions().size() >= 3;
                });
                for (EventLoop loop : loops()) {
                    await().atMost(Duration.ofSeconds(20)).until(() -> loop.submit(lanes::here).get(5, TimeUnit.SECONDS) != null);
                }
                lanes.close();
                for (EventLoop loop : loops()) {
                    assertThat(loop.submit(lanes::here).get(5, TimeUnit.SECONDS)).as("a lane after close").isNull();
                }
            }
        } finally {
            lanes.close();
            retries.shutdownNow();
        }
    }

    /** A cluster client whose resources put its channels on the owner's loops; closing it leaves the loops running. */
    private record OnOwnersLoops(ClientResources resources, RedisClusterClient client) implements AutoCloseable {

        static OnOwnersLoops of(List<String> uris) {
            ClientResources resources = DefaultClientResources.builder().eventLoopGroupProvider(RedisCounterStore.sharedLoops(owners)).build();
            return new OnOwnersLoops(resources, RedisClusterClient.create(resources, uris.stream().map(RedisURI::create).toList()));
        }

        @Override
        public void close() throws Exception {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            resources.shutdown(0, 2, TimeUnit.SECONDS).get(5, TimeUnit.SECONDS);
        }
    }

    private static void assertEachCallAnsweredOnItsLoop(RedisCounterStore store, List<String> keys) throws Exception {
        for (EventLoop loop : loops()) {
            String name = loop.submit(() -> Thread.currentThread().getName()).get(5, TimeUnit.SECONDS);
            for (String key : keys) {
                assertThat(answeredOn(store, loop, key)).as("the thread that completed a call sent from %s to %s", name, key).isEqualTo(name);
            }
        }
    }

    /**
     * The thread that completed a call sent from {@code loop} (waited for here: a loop must never block on its own reply).
     * The other loops are held until the call's continuation is attached: a reply that came in on another loop before
     * that would run the continuation on the sending thread, and name it instead of the loop that read the reply.
     */
    private static String answeredOn(RedisCounterStore store, EventLoop loop, String key) throws Exception {
        CountDownLatch attached = new CountDownLatch(1);
        List<EventLoop> others = loops().stream().filter(other -> other != loop).toList();
        CountDownLatch held = new CountDownLatch(others.size());
        for (EventLoop other : others) {
            other.execute(() -> {
                held.countDown();
                try {
                    attached.await(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        try {
            assertThat(held.await(5, TimeUnit.SECONDS)).as("the other loops held").isTrue();
            CompletableFuture<String> answered = loop.submit(() -> store.run(HEARTBEAT, List.of(key), List.of("pod", "3000"))
                    .thenApply(reply -> Thread.currentThread().getName())).get(5, TimeUnit.SECONDS);
            attached.countDown();
            return answered.get(5, TimeUnit.SECONDS);
        } finally {
            attached.countDown();
        }
    }

    private static List<EventLoop> loops() {
        List<EventLoop> loops = new ArrayList<>();
        owners.forEach(executor -> loops.add((EventLoop) executor));
        return loops;
    }

    private static List<String> aKeyOnEachPrimary() {
        int primaries = cluster.primaries().size();
        Map<String, String> keys = new HashMap<>();
        for (int i = 0; keys.size() < primaries && i < 1_000; i++) {
            String key = "tg:{lanes-" + i + "}:heartbeat";
            keys.putIfAbsent(cluster.primaryForKey(key).hostAndPort(), key);
        }
        assertThat(keys).as("a key on each primary").hasSize(primaries);
        return List.copyOf(keys.values());
    }
}
