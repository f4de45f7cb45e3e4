package dev.tollgate.store;

import dev.tollgate.store.key.RedisKeys;
import dev.tollgate.testsupport.redis.Node;
import dev.tollgate.testsupport.redis.RedisCluster;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Connecting is never blocking and never final (issue 11, reproduction 1): a store started before its
 * cluster exists, one whose first handshakes time out, and one whose password the cluster refuses
 * each connect at their next attempt once the cluster accepts them (about a second: the backoff is capped
 * at half of one), retrying on the store's own
 * thread, never on Lettuce's; and closing a store while a connect hangs leaves nothing open.
 */
class ConnectIT {

    private static final Logger log = LoggerFactory.getLogger(ConnectIT.class);
    /**
     * How long a test waits for something to happen (a connect, a failed attempt, a thread gone): generous, because
     * how soon the store connects is counted, in failed attempts after the cluster could take it. The backoff's cap
     * (0.5 s, ConnectBackoffTest) is what makes that about a second; on a busy 2-core machine a cold JVM's first
     * attempt alone took its whole 3 s limit.
     */
    private static final Duration RECOVERY = Duration.ofSeconds(30);

    @Test
    void connectsAtItsNextAttemptToAClusterStartedAfterIt() throws Exception {
        List<Integer> ports = RedisCluster.reservePorts(3);
        RedisStoreSettings settings = RedisStoreSettings.of(ports.stream().map(port -> "redis://127.0.0.1:" + port).toList());
        try (RedisCounterStore store = RedisCounterStore.start(settings)) {
            await().atMost(RECOVERY).until(() -> store.status().failures() >= 3);
            RedisCounterStore.ConnectionStatus waiting = store.status();
            assertThat(waiting.connected()).isFalse();
            assertThat(waiting.lastError()).containsIgnoringCase("refused");
            assertRetriesNeverParkALettuceThread(store);

            long starting = System.nanoTime();
            try (RedisCluster cluster = RedisCluster.builder().ports(ports).start()) {
                long answering = System.nanoTime();
                int failedBefore = store.status().failures();
                // its nodes answer PING within milliseconds of starting; slots are served about 2 s later (CLUSTER_WRITABLE_DELAY)
                log.info("the cluster took {} ms to start and form", Duration.ofNanos(answering - starting).toMillis());
                assertThat(store.awaitConnected(RECOVERY)).isTrue();
                Duration took = Duration.ofNanos(System.nanoTime() - answering);
                log.info("connected {} ms after the cluster was healthy, after {} failed attempts", took.toMillis(), store.status().failures());
                // the next attempt connects, or the one after if the attempt under way read the slot map half-formed
                assertThat(store.status().failures() - failedBefore).as("attempts that failed after the cluster answered").isLessThanOrEqualTo(1);

                // and it serves: a script runs on the cluster (5 ms: a first call on a busy machine may miss it once)
                await().atMost(RECOVERY).ignoreExceptions().until(() ->
                        store.run(LuaScript.load("pod_heartbeat"), List.of(RedisKeys.podRegistry("connect-it")), List.of("pod", "3000"))
                                .get(1, TimeUnit.SECONDS).get(0) == 1L);
            }
        }
    }

    @Test
    void recoversFromFirstConnectsThatTimeOutInTheHandshake() {
        try (RedisCluster cluster = RedisCluster.builder().start()) {
            // frozen: the kernel still accepts TCP connections, but no handshake is ever answered
            cluster.nodes().forEach(Node::freeze);
            try (RedisCounterStore store = RedisCounterStore.start(
                    RedisStoreSettings.of(cluster.seedUris()).withConnectTimeout(Duration.ofMillis(200)))) {
                int[] failedBefore = new int[1];
                try {
                    await().atMost(RECOVERY).until(() -> store.status().failures() >= 2);
                    assertThat(store.status().connected()).isFalse();
                    assertThat(store.status().lastError()).containsIgnoringCase("time");
                    failedBefore[0] = store.status().failures();
                } finally {
                    cluster.nodes().forEach(Node::unfreeze);
                }
                long thawed = System.nanoTime();
                assertThat(store.awaitConnected(RECOVERY)).isTrue();
                Duration took = Duration.ofNanos(System.nanoTime() - thawed);
                log.info("connected {} ms after the thaw, after {} failed attempts", took.toMillis(), store.status().failures());
                // the attempt under way at the thaw may still fail (counted just before it), and one more whose handshake a
                // busy machine stretched past the 200 ms this test allows; an attempt that never recovers would fail on
                assertThat(store.status().failures() - failedBefore[0]).as("attempts that failed after the thaw").isLessThanOrEqualTo(2);
            }
        }
    }

    @Test
    void aFiveMillisecondCommandTimeoutNeverFailsTheHandshake() {
        // 1 ms, below the design's 5 ms: before the connect timeout, this was the handshake's bound too. The connect
        // timeout is generous (a cold JVM's first attempt took over the default's 3 s limit on a busy machine), so
        // that only the command timeout could fail this handshake
        RedisStoreSettings settings = RedisStoreSettings.of(RedisCluster.shared().seedUris()).withCommandTimeout(Duration.ofMillis(1))
                .withConnectTimeout(Duration.ofSeconds(10));
        try (RedisCounterStore store = RedisCounterStore.connect(settings)) {
            assertThat(store.isConnected()).isTrue();
            assertThat(store.status().failures()).isZero();
        }
    }

    @Test
    void connectsOnceTheClusterTakesItsPassword() {
        try (RedisCluster cluster = RedisCluster.builder().password("old-secret").start()) {
            List<String> seeds = cluster.nodes().stream().map(node -> "redis://" + node.hostAndPort()).toList();
            try (RedisCounterStore store = RedisCounterStore.start(RedisStoreSettings.of(seeds).withCredentials(null, "new-secret"))) {
                await().atMost(RECOVERY).until(() -> store.status().failures() >= 3);
                assertThat(store.status().connected()).isFalse();
                assertThat(store.status().lastError()).isEqualTo("the cluster refused our credentials");
                assertThat(store.status().toString()).doesNotContain("secret");

                // the operator rotates the cluster's password to the one the pods were given
                for (Node node : cluster.nodes()) {
                    setPassword(node, "old-secret", "new-secret");
                }
                long rotated = System.nanoTime();
                int failedBefore = store.status().failures();
                assertThat(store.awaitConnected(RECOVERY)).isTrue();
                Duration took = Duration.ofNanos(System.nanoTime() - rotated);
                log.info("connected {} ms after the password change, after {} failed attempts", took.toMillis(), store.status().failures());
                // the next attempt connects: only the one under way may still have been refused
                assertThat(store.status().failures() - failedBefore).as("attempts that failed after the rotation").isLessThanOrEqualTo(1);
            }
        }
    }

    @Test
    void closingWhileAConnectHangsLeavesNothingOpen() throws Exception {
        // a peer that accepts TCP and never says a word: the handshake hangs until the (long) connect timeout
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            List<Socket> accepted = new CopyOnWriteArrayList<>();
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        accepted.add(silent.accept());
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            }, "silent-peer");
            acceptor.setDaemon(true);
            acceptor.start();

            RedisCounterStore store = RedisCounterStore.start(RedisStoreSettings.of(List.of("redis://127.0.0.1:" + silent.getLocalPort()))
                    .withConnectTimeout(Duration.ofSeconds(10)));
            String connector = store.connectorThreadName();
            await().atMost(RECOVERY).until(() -> !accepted.isEmpty());
            assertThat(threadNamed(connector)).as("the connector thread runs").isTrue();

            long closing = System.nanoTime();
            store.close();
            assertThat(Duration.ofNanos(System.nanoTime() - closing)).isLessThan(Duration.ofSeconds(3));

            for (Socket socket : accepted) {
                assertThat(closedByPeer(socket)).as("the pending connection is closed, not leaked").isTrue();
            }
            assertThat(store.isConnected()).isFalse();
            await().atMost(RECOVERY).until(() -> !threadNamed(connector));
            for (Socket socket : accepted) {
                socket.close();
            }
        }
    }

    private static void assertRetriesNeverParkALettuceThread(RedisCounterStore store) {
        // the defect: the retry ran RedisClusterClient.connect() on Lettuce's executor and parked in assertInitialPartitions
        for (Map.Entry<Thread, StackTraceElement[]> thread : Thread.getAllStackTraces().entrySet()) {
            if (!thread.getKey().getName().startsWith("lettuce")) {
                continue;
            }
            assertThat(Arrays.stream(thread.getValue()).map(frame -> frame.getClassName() + "." + frame.getMethodName()))
                    .as("Lettuce thread %s", thread.getKey().getName())
                    .noneMatch(frame -> frame.endsWith("assertInitialPartitions") || frame.endsWith("RedisCounterStore.attempt"));
        }
        assertThat(threadNamed(store.connectorThreadName())).isTrue();
    }

    private static boolean threadNamed(String name) {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(thread -> thread.getName().equals(name) && thread.isAlive());
    }

    /** Whether the other end closed the connection within two seconds: a read sees EOF or a reset. */
    private static boolean closedByPeer(Socket socket) throws IOException {
        socket.setSoTimeout(2_000);
        try (InputStream in = socket.getInputStream()) {
            while (true) {
                if (in.read() < 0) {
                    return true;
                }
            }
        } catch (SocketException reset) {
            return true;
        } catch (java.net.SocketTimeoutException stillOpen) {
            return false;
        }
    }

    private static void setPassword(Node node, String current, String next) {
        RedisClient client = RedisClient.create();
        try (StatefulRedisConnection<String, String> connection = client.connect(RedisURI.builder()
                .withHost(node.host()).withPort(node.port()).withPassword(current.toCharArray())
                .withTimeout(Duration.ofSeconds(2)).build())) {
            connection.sync().configSet("requirepass", next);
        } finally {
            client.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }
}
