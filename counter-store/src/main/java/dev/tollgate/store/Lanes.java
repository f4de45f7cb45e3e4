package dev.tollgate.store;

import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.StringCodec;
import io.netty.channel.EventLoop;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A cluster connection per event loop of the owner's ({@link PinnedLoops}), each with its channels on its own loop: a
 * script call sent from a loop goes out on that loop's lane, so it is written, its reply read and whatever completes on
 * the reply (the check's answer, in check-service) run on the thread that sent it, with no hand-off between loops. One
 * shared connection instead put each shard's channel on one loop, and every call from another loop took two hops: its
 * write queued onto the channel's loop, the answer queued back.
 *
 * <p>Each lane is a connection of the store's one client, so it has the client's options (no replay, a fail-fast
 * while disconnected, the command timeout) and its slot map, refreshes and reconnects; it is only another set of
 * channels. A lane that is not open yet leaves its loop's calls on the shared connection, as are the calls of every
 * other thread; one that fails to open (a pod that connected while its cluster failed over) is tried again with the
 * store's connect backoff until it opens or the store closes. Each primary then has one connection more per loop from
 * each pod.
 */
final class Lanes {

    private static final Logger log = LoggerFactory.getLogger(Lanes.class);

    private final PinnedLoops loops;
    /** Where a lane that failed to open is tried again: the store's connect thread. */
    private final ScheduledExecutorService retries;
    private final AtomicReferenceArray<StatefulRedisClusterConnection<String, String>> open;
    private final AtomicReferenceArray<RedisAdvancedClusterAsyncCommands<String, String>> commands;
    private volatile boolean closed;

    Lanes(PinnedLoops loops, ScheduledExecutorService retries) {
        this.loops = loops;
        this.retries = retries;
        this.open = new AtomicReferenceArray<>(loops.loops().size());
        this.commands = new AtomicReferenceArray<>(loops.loops().size());
    }

    /**
     * Opens a lane per loop and a channel to every primary on each, placed on the lane's loop; completes when each
     * lane's first attempt has settled, never exceptionally.
     */
    CompletableFuture<Void> open(RedisClusterClient client) {
        List<CompletableFuture<?>> opening = new ArrayList<>();
        for (int lane = 0; lane < loops.loops().size(); lane++) {
            opening.add(open(client, lane, 1));
        }
        return CompletableFuture.allOf(opening.toArray(CompletableFuture[]::new));
    }

    private CompletableFuture<Void> open(RedisClusterClient client, int lane, int attempt) {
        if (closed) {
            return CompletableFuture.completedFuture(null);
        }
        EventLoop loop = loops.loops().get(lane);
        CompletableFuture<StatefulRedisClusterConnection<String, String>> connected;
        try {
            connected = PinnedLoops.pinTo(loop, () -> client.connectAsync(StringCodec.UTF8).toCompletableFuture());
        } catch (RuntimeException e) {
            connected = CompletableFuture.failedFuture(e);
        }
        return connected.thenCompose(connection -> primaries(connection, loop).handle((ignored, error) -> {
            // a primary not reached now is connected by the lane's first call to it, from its loop
            adopt(lane, connection);
            return (Void) null;
        })).exceptionally(error -> {
            Duration delay = RedisCounterStore.CONNECT_BACKOFF.delay(attempt, ThreadLocalRandom.current());
            log.debug("lane {} of the store's connections did not open (attempt {}): {}; its loop's calls use the shared "
                    + "connection, next attempt in {} ms", lane, attempt, RedisCounterStore.describe(error), delay.toMillis());
            try {
                retries.schedule(() -> open(client, lane, attempt + 1), delay.toMillis(), TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                // the store closed meanwhile
            }
            return null;
        });
    }

    /** The lane's channel to every primary, placed on its loop now rather than by the first call that needs it. */
    private static CompletableFuture<Void> primaries(StatefulRedisClusterConnection<String, String> connection, EventLoop loop) {
        List<CompletableFuture<?>> nodes = new ArrayList<>();
        for (RedisClusterNode node : connection.getPartitions()) {
            if (RedisCounterStore.owner(node)) {
                try {
                    nodes.add(PinnedLoops.pinTo(loop, () -> connection.getConnectionAsync(node.getUri().getHost(), node.getUri().getPort()))
                            .toCompletableFuture());
                } catch (RuntimeException e) {
                    // the lane is open all the same: its first call to that node connects it
                    nodes.add(CompletableFuture.failedFuture(e));
                }
            }
        }
        return CompletableFuture.allOf(nodes.toArray(CompletableFuture[]::new));
    }

    private void adopt(int lane, StatefulRedisClusterConnection<String, String> connection) {
        synchronized (this) {
            if (!closed) {
                open.set(lane, connection);
                commands.set(lane, connection.async());
                return;
            }
        }
        connection.closeAsync();
    }

    /** The lane of the loop this thread runs, or null on any other thread or while it is not open. */
    RedisAdvancedClusterAsyncCommands<String, String> here() {
        int lane = loops.current();
        return lane < 0 ? null : commands.get(lane);
    }

    void close() {
        synchronized (this) {
            closed = true;
        }
        for (int i = 0; i < open.length(); i++) {
            commands.set(i, null);
            StatefulRedisClusterConnection<String, String> connection = open.getAndSet(i, null);
            if (connection != null) {
                connection.close();
            }
        }
    }
}
