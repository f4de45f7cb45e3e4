package dev.tollgate.store;

import dev.tollgate.store.backoff.Backoff;
import dev.tollgate.store.backoff.Backoff.Jitter;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.EventLoopGroupProvider;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.util.HashedWheelTimer;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ImmediateEventExecutor;
import io.lettuce.core.resource.Delay;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Runs the limiter's scripts on a Redis Cluster through Lettuce, by EVALSHA. When a node answers
 * NOSCRIPT (after a failover to a replica that never saw the script, or SCRIPT FLUSH) nothing ran, so
 * the same call is sent once more as EVAL, which also caches the script on that node.
 *
 * <p>Two client defaults would turn a network blip into a lost update, and both are switched off
 * here: every command has a deadline (async commands have none by default), and no command is
 * re-sent after a reconnect (by default Lettuce replays commands that were in flight when a
 * connection dropped, which would apply a spend twice). A command sent while a node is disconnected
 * fails at once instead of queueing.
 */
public final class RedisCounterStore implements CounterStore {

    private static final Logger log = LoggerFactory.getLogger(RedisCounterStore.class);
    /** After a failure that says the slot map may have moved (a refused or dropped connection, a redirect). */
    private static final long REFRESH_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
    /**
     * After a timeout: a loaded pod or node times out many calls a second, and each refresh re-reads every
     * node's CLUSTER NODES on fresh connections and rebuilds the slot cache, which starved the pod further
     * (Partitions.updateCache at 38.7% of its CPU samples in bench scenario 8). A frozen primary that the
     * cluster fails over gives no other signal, so a timeout still refreshes, at most this often.
     */
    private static final long TIMEOUT_REFRESH_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** A pod that cannot connect says so at WARN when it starts failing, then once a minute. */
    private static final long WARN_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);
    /**
     * The wait before the next connect attempt. The cap is what bounds recovery: a pod whose cluster comes back is
     * at most half a second plus one attempt away from connecting, which keeps it within the issue's "about a
     * second". Each wait is drawn from the upper half of its ceiling, so a region's pods, started together, do not
     * retry in step.
     */
    static final Backoff CONNECT_BACKOFF = new Backoff(Duration.ofMillis(50), Duration.ofMillis(500), Jitter.EQUAL);
    /** Replies by which a node says the slot is elsewhere or the cluster is re-forming. */
    private static final List<String> TOPOLOGY_ERRORS = List.of("MOVED", "ASK", "CLUSTERDOWN", "TRYAGAIN");
    /** Replies of a node that cannot serve anyone's script right now: the shard is out, not the script wrong. */
    private static final List<String> NODE_STATE_ERRORS = Stream.concat(TOPOLOGY_ERRORS.stream(),
            Stream.of("LOADING", "MASTERDOWN", "READONLY", "BUSY")).toList();
    private static final AtomicInteger STORES = new AtomicInteger();
    /** The timeout of the call being sent on this thread, while {@link #timed} sends it; null: the command timeout. */
    private static final ThreadLocal<Duration> CALL_TIMEOUT = new ThreadLocal<>();
    /** The scripts of the check's path, loaded on every primary before the first check (see {@link #prime}). */
    private static final List<LuaScript> PRIMED = List.of(LuaScript.SPEND, LuaScript.REFUND);

    private final RedisClusterClient client;
    private final ClientResources resources;
    private final List<String> seeds;
    private final Duration commandTimeout;
    private final Clock clock = Clock.systemUTC();
    /** An attempt that has not settled by then is given up on (a late connection is still taken, or closed). */
    private final Duration attemptLimit;
    /**
     * Runs every connect attempt and retry. Lettuce completes its futures on its own event-loop and
     * executor threads; a blocking connect there waits on work only those threads can do, and parks
     * forever (issue 11). Nothing here blocks on those threads: they only hand results back.
     */
    private final ScheduledExecutorService connector;
    private final String connectorName;
    private final Object lock = new Object();
    private volatile StatefulRedisClusterConnection<String, String> connection;
    private volatile RedisAdvancedClusterAsyncCommands<String, String> commands;
    /** A connection per event loop of the owner's, when the client's channels are on them and the settings ask; else null. */
    private final Lanes lanes;
    private volatile boolean closed;
    private volatile ConnectionStatus status;
    /** Guarded by lock: the attempt in flight, the last one settled, failures so far. */
    private long currentAttempt;
    private long settledAttempt;
    private int failures;
    private long lastWarnNanos;
    private final CompletableFuture<Void> firstOutcome = new CompletableFuture<>();
    private final CompletableFuture<Void> connected = new CompletableFuture<>();
    /** When the slot map was last re-read because a node failed us: at most one refresh per interval. */
    private final AtomicLong lastRefreshNanos = new AtomicLong(System.nanoTime());

    /**
     * @param resources the client's resources when the store made the client itself (it then shuts both
     *                  down on close); null for a client it was handed, which its owner shuts down
     */
    private RedisCounterStore(RedisClusterClient client, ClientResources resources, List<String> seeds, Duration commandTimeout,
                              Duration connectTimeout, boolean lanes) {
        this.client = client;
        this.resources = resources;
        this.seeds = redacted(seeds);
        this.commandTimeout = commandTimeout;
        // topology read, TCP connect and handshake are each bounded by the connect timeout in Lettuce
        this.attemptLimit = connectTimeout.multipliedBy(3);
        this.status = new ConnectionStatus(false, clock.instant(), 0, null);
        this.connectorName = "redis-connect-" + STORES.incrementAndGet();
        this.connector = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, connectorName);
            thread.setDaemon(true);
            return thread;
        });
        this.lanes = lanes && client.getResources().eventLoopGroupProvider() instanceof SharedLoops shared
                ? new Lanes(shared.pinned(), connector) : null;
    }

    /**
     * Starts connecting to the cluster and returns at once. A pod must serve even when its store is down
     * at start-up (requirement #4): attempts go on in the background, with backoff and jitter capped at
     * {@link #CONNECT_BACKOFF}'s half second, until one succeeds or the store is closed; until then
     * every script call fails as unavailable and the rules' fail modes answer. Never final: a wrong
     * password, an unformed cluster or a handshake timeout are all retried.
     */
    public static RedisCounterStore start(RedisStoreSettings settings) {
        ClientResources resources = DefaultClientResources.builder().reconnectDelay(reconnectDelay()).timer(commandTimer())
                .nettyCustomizer(batchedWrites()).build();
        RedisClusterClient client = RedisClusterClient.create(resources, uris(settings));
        client.setOptions(clientOptions(settings));
        RedisCounterStore store = new RedisCounterStore(client, resources, settings.seeds(), settings.commandTimeout(),
                settings.connectTimeout(), false);
        store.connector.execute(store::attempt);
        return store;
    }

    /**
     * As {@link #start(RedisStoreSettings)}, on a client someone else built and owns (Spring Data Redis's
     * Lettuce connection factory, configured from {@code spring.data.redis.*}): its seeds, credentials, TLS,
     * socket and handshake timeouts are kept, and the store's own options are laid over them (see
     * {@link #clientOptions(ClientOptions, ClientSettings)}). The client's options then hold for every
     * connection it opens, so hand the store a client of its own. Closing the store closes its connection,
     * never the client. Give the client's resources {@link #reconnectDelay()}, {@link #commandTimer()} and
     * {@link #batchedWrites()}: they are the owner's to set.
     *
     * @param nodes the cluster's nodes as configured, for log lines and health (credentials are stripped)
     */
    public static RedisCounterStore start(RedisClusterClient client, List<String> nodes, ClientSettings settings) {
        ClusterClientOptions options = clientOptions(client.getOptions(), settings);
        client.setOptions(options);
        RedisCounterStore store = new RedisCounterStore(client, null, nodes, settings.commandTimeout(),
                options.getSocketOptions().getConnectTimeout(), settings.lanes());
        store.connector.execute(store::attempt);
        return store;
    }

    /**
     * Lettuce's default reconnect delay doubles up to 30 s: a node that refused us for 3 s (a password
     * rotated, a restart) would then wait seconds more after it is back. Capped at half a second, jittered
     * so a region's pods do not reconnect in step. A delay is part of the client's resources, so the owner
     * of a client handed to {@link #start(RedisClusterClient, List, ClientSettings)} sets it.
     */
    public static Supplier<Delay> reconnectDelay() {
        return () -> Delay.equalJitter(Duration.ofMillis(20), Duration.ofMillis(500), 2, TimeUnit.MILLISECONDS);
    }

    /**
     * Concurrent script calls to one shard leave in one write: every call is written and flushed on its own (Lettuce's
     * auto-flush), each flush a syscall that, on loopback and on a busy pod, costs more than the call's encoding.
     * Netty's {@link FlushConsolidationHandler} at the head of each connection's pipeline turns the flushes that land
     * in one turn of the connection's event loop into one, at the end of that turn, without waiting for anything: a
     * lone call leaves as it did. For resources the store's owner builds.
     */
    public static NettyCustomizer batchedWrites() {
        return new NettyCustomizer() {
            @Override
            public void afterChannelInitialized(Channel channel) {
                channel.pipeline().addFirst("tollgate-batched-writes",
                        new FlushConsolidationHandler(FlushConsolidationHandler.DEFAULT_EXPLICIT_FLUSH_AFTER_FLUSHES, true));
            }
        };
    }

    /**
     * Lettuce's channels on event loops someone else owns (the check port's): a store whose settings ask for
     * {@link ClientSettings#withLanes() lanes} opens a connection per loop with its channels on that loop, so a
     * check's script call is written, its reply read and the response written on the thread the request came in on,
     * without a hand-off between threads ({@link Lanes}). Lettuce's own I/O threads are not started. The loops are
     * never shut down here: their owner does that, after the client. Only for loops of the transport Lettuce picks
     * ({@code Transports.socketChannelClass()}): a channel cannot register with another transport's loop.
     */
    public static EventLoopGroupProvider sharedLoops(EventLoopGroup loops) {
        return new SharedLoops(new PinnedLoops(loops));
    }

    /** The owner's loops, handed to Lettuce as {@link PinnedLoops}; a store on a client with them can open {@link Lanes}. */
    private record SharedLoops(PinnedLoops pinned) implements EventLoopGroupProvider {

        @Override
        @SuppressWarnings("unchecked")
        public <T extends EventLoopGroup> T allocate(Class<T> type) {
            // Lettuce asks by its transport's group class, yet only uses what comes back as an EventLoopGroup
            return (T) pinned;
        }

        @Override
        public int threadPoolSize() {
            return pinned.loops().size();
        }

        @Override
        public Future<Boolean> release(EventExecutorGroup group, long quietPeriod, long timeout, TimeUnit unit) {
            return ImmediateEventExecutor.INSTANCE.newSucceededFuture(true);
        }

        @Override
        public Future<Boolean> shutdown(long quietPeriod, long timeout, TimeUnit unit) {
            return ImmediateEventExecutor.INSTANCE.newSucceededFuture(true);
        }
    }

    /**
     * The timer the client's command timeouts run on, for resources the store's owner builds. Lettuce's own
     * ticks every 100 ms, so a 5 ms command timeout fired 5-105 ms after the command was sent: the check's
     * deadline answered first, and the shard's breaker learnt of a frozen primary ~100 ms late. This one
     * ticks every millisecond. Lettuce never stops a timer it was handed: stop it once the resources are
     * shut down.
     */
    public static HashedWheelTimer commandTimer() {
        return new HashedWheelTimer(new DefaultThreadFactory("lettuce-command-timer", true), 1, TimeUnit.MILLISECONDS, 1024);
    }

    /**
     * {@link #start} and then waits, on the caller's thread, for the first attempt's outcome (bounded by
     * three connect timeouts), so that a caller against a healthy cluster gets a connected store. Whatever
     * the outcome, connecting goes on in the background as with {@link #start}.
     */
    public static RedisCounterStore connect(RedisStoreSettings settings) {
        return awaitFirstOutcome(start(settings));
    }

    /** {@link #start(RedisClusterClient, List, ClientSettings)}, waiting for the first attempt as {@link #connect(RedisStoreSettings)} does. */
    public static RedisCounterStore connect(RedisClusterClient client, List<String> nodes, ClientSettings settings) {
        return awaitFirstOutcome(start(client, nodes, settings));
    }

    /**
     * Waits, on the caller's thread, for the first attempt's outcome as {@link #connect} does (bounded by
     * three connect timeouts): for a caller that {@link #start started} the store early and had other work
     * to do while it connected. Returns at once when the first attempt has settled.
     */
    public RedisCounterStore awaitFirstAttempt() {
        return awaitFirstOutcome(this);
    }

    private static RedisCounterStore awaitFirstOutcome(RedisCounterStore store) {
        try {
            store.firstOutcome.get(store.attemptLimit.toMillis() + 100, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // not connected yet: the background attempts carry on, and the fail modes answer meanwhile
        }
        return store;
    }

    /** Runs on {@link #connector} only. */
    private void attempt() {
        long id;
        synchronized (lock) {
            if (closed || connection != null) {
                return;
            }
            id = ++currentAttempt;
        }
        connector.schedule(() -> giveUp(id), attemptLimit.toMillis(), TimeUnit.MILLISECONDS);
        CompletableFuture<StatefulRedisClusterConnection<String, String>> opening;
        try {
            // Lettuce's connectAsync needs a slot map first (it fails at once without one); both are asynchronous.
            // The connect itself is started on our thread, not on the Lettuce thread that read the slot map.
            opening = client.refreshPartitionsAsync().toCompletableFuture()
                    .thenComposeAsync(ignored -> client.connectAsync(StringCodec.UTF8), connector);
        } catch (RuntimeException e) {
            opening = CompletableFuture.failedFuture(e);
        }
        opening.whenComplete((opened, error) -> settle(id, opened, error));
    }

    /**
     * Takes a connection or counts a failure. Runs on whichever thread completed the attempt, a Lettuce
     * thread included, so it only records and schedules: nothing in it blocks.
     */
    private void settle(long id, StatefulRedisClusterConnection<String, String> opened, Throwable error) {
        Throwable failure = error;
        if (opened != null) {
            String gap = coverageGap(opened);
            boolean adopted = false;
            synchronized (lock) {
                if (!closed && connection == null && gap == null) {
                    this.commands = opened.async();
                    this.connection = opened;
                    this.status = new ConnectionStatus(true, clock.instant(), failures, status.lastError());
                    settledAttempt = id;
                    adopted = true;
                }
            }
            if (adopted) {
                log.info("connected to the Redis Cluster at {}{}", seeds, failures == 0 ? "" : " after " + failures + " failed attempts");
                // bounded as an attempt is: whatever the primaries do, the store counts as connected after it
                CompletableFuture<Void> ready = prime(opened);
                if (lanes != null) {
                    ready = ready.thenCompose(primed -> lanes.open(client));
                }
                ready.completeOnTimeout(null, attemptLimit.toMillis(), TimeUnit.MILLISECONDS).whenComplete((ignored, primingFailed) -> {
                    connected.complete(null);
                    firstOutcome.complete(null);
                });
                return;
            }
            // half-made (the slot map is incomplete), late (another attempt won) or after close(): never leaked
            opened.closeAsync();
            if (gap == null) {
                return;
            }
            failure = new IllegalStateException(gap);
        }
        recordFailure(id, describe(failure));
    }

    /**
     * Opens the connection to every primary and loads the check's scripts there before the first attempt
     * counts as settled (and so before a starting pod opens its ports). Lettuce opens a node's connection at
     * the first command routed to it, within that command's deadline of a few milliseconds: on a cold JVM
     * the connect and handshake alone could take that. Best effort: a node that does not answer now is
     * connected at its first command, as before.
     */
    private static CompletableFuture<Void> prime(StatefulRedisClusterConnection<String, String> opened) {
        List<CompletableFuture<?>> nodes = new ArrayList<>();
        for (RedisClusterNode node : opened.getPartitions()) {
            if (owner(node)) {
                nodes.add(opened.getConnectionAsync(node.getUri().getHost(), node.getUri().getPort())
                        .thenCompose(primary -> CompletableFuture.allOf(PRIMED.stream()
                                .map(script -> primary.async().scriptLoad(script.body()).toCompletableFuture())
                                .toArray(CompletableFuture[]::new))));
            }
        }
        return CompletableFuture.allOf(nodes.toArray(CompletableFuture[]::new)).exceptionally(error -> {
            log.debug("could not prepare every primary before the first check: {}", describe(error));
            return null;
        });
    }

    /** The attempt has not settled within its limit: counted as failed, and the next one is scheduled. */
    private void giveUp(long id) {
        recordFailure(id, "no connection within " + attemptLimit.toMillis() + " ms");
    }

    private void recordFailure(long id, String reason) {
        boolean warn;
        int failed;
        synchronized (lock) {
            if (closed || connection != null || id != currentAttempt || settledAttempt == id) {
                return; // settled already, or a late failure of an attempt given up on
            }
            settledAttempt = id;
            failed = ++failures;
            status = new ConnectionStatus(false, status.since(), failed, reason);
            long now = System.nanoTime();
            warn = failed == 1 || now - lastWarnNanos >= WARN_EVERY_NANOS;
            if (warn) {
                lastWarnNanos = now;
            }
        }
        firstOutcome.complete(null);
        Duration delay = CONNECT_BACKOFF.delay(failed, ThreadLocalRandom.current());
        if (warn) {
            // the pod keeps serving; tollgate.store.connected and tollgate.store.calls{outcome=not_connected} alert
            log.warn("cannot connect to the Redis Cluster at {} ({} failed attempts since {}): {}; retrying with backoff up to {} ms, fail modes apply meanwhile",
                    seeds, failed, status.since(), reason, CONNECT_BACKOFF.max().toMillis());
        } else {
            log.debug("still cannot connect to the Redis Cluster at {}: {}; next attempt in {} ms", seeds, reason, delay.toMillis());
        }
        try {
            connector.schedule(this::attempt, delay.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // closed meanwhile
        }
    }

    /**
     * A node that answers before the cluster is formed (or one with unassigned slots) gives a slot map
     * that does not cover every slot: not counted as reaching the store, and tried again.
     */
    private static String coverageGap(StatefulRedisClusterConnection<String, String> opened) {
        var partitions = opened.getPartitions();
        int covered = 0;
        for (int slot = 0; slot < SlotHash.SLOT_COUNT; slot++) {
            if (partitions.getPartitionBySlot(slot) != null) {
                covered++;
            }
        }
        return covered == SlotHash.SLOT_COUNT ? null
                : "the cluster's slot map covers " + covered + " of " + SlotHash.SLOT_COUNT + " slots (not formed yet?)";
    }

    /** A failure's reason, for the log and for health: one line, credentials stripped. */
    static String describe(Throwable error) {
        Throwable cause = unwrap(error);
        if (isAccessDenial(cause)) {
            return "the cluster refused our credentials";
        }
        String reason = safeMessage(cause);
        Throwable root = cause;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        if (root != cause && root.getMessage() != null) {
            // the root cause first ("Connection refused", "timed out"): Lettuce's outer messages list every seed
            reason = safeMessage(root) + " (" + reason + ")";
        }
        reason = reason.replaceAll("\\s+", " ").trim();
        return reason.length() > 400 ? reason.substring(0, 400) + "..." : reason;
    }

    /** How long one script may take before it counts as a timeout. */
    public Duration commandTimeout() {
        return commandTimeout;
    }

    /** Whether the pod has reached its store since it started (it stays so through later node outages). */
    public boolean isConnected() {
        return connection != null;
    }

    /** For health: connected or not, since when, and why not. */
    public ConnectionStatus status() {
        return status;
    }

    /**
     * Completes once the store is connected and its primaries are readied (see {@link #prime}), on a
     * thread of Lettuce's: what runs after it must not block, or hand itself to an executor of its own.
     */
    public CompletableFuture<Void> whenConnected() {
        return connected.copy();
    }

    /** Waits up to {@code max} for the store to be connected; for start-up and tests. */
    public boolean awaitConnected(Duration max) {
        try {
            connected.get(max.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException | TimeoutException e) {
            return false;
        }
    }

    /** The name of the thread that connects, for tests that check it is gone after close. */
    String connectorThreadName() {
        return connectorName;
    }

    /**
     * @param connected  whether the pod has a cluster connection (it has reached its store since start)
     * @param since      when it started trying (not connected) or when it connected
     * @param failures   failed attempts so far
     * @param lastError  why the last attempt failed, without credentials; null before any failure
     */
    public record ConnectionStatus(boolean connected, Instant since, int failures, String lastError) {
    }

    static ClusterClientOptions clientOptions(RedisStoreSettings settings) {
        ClientOptions base = ClientOptions.builder()
                .socketOptions(SocketOptions.builder().connectTimeout(settings.connectTimeout()).build())
                .build();
        return clientOptions(base, new ClientSettings(settings.commandTimeout(), settings.topologyRefresh()));
    }

    /** The client's own options (socket, TLS, protocol) with the store's laid over them. */
    static ClusterClientOptions clientOptions(ClientOptions base, ClientSettings settings) {
        ClusterClientOptions.Builder options = base instanceof ClusterClientOptions cluster
                ? cluster.mutate() : ClusterClientOptions.builder(base);
        ClusterTopologyRefreshOptions topology = ClusterTopologyRefreshOptions.builder()
                .enablePeriodicRefresh(topologyRefresh(base, settings))
                .enableAllAdaptiveRefreshTriggers()
                .adaptiveRefreshTriggersTimeout(Duration.ofMillis(500))
                .refreshTriggersReconnectAttempts(2)
                .dynamicRefreshSources(true)
                .closeStaleConnections(true)
                .build();
        return options
                .topologyRefreshOptions(topology)
                .maxRedirects(3)
                // a slot moved to a primary added since the last slot-map read (the TollgateHotSlot runbook) answers
                // ASK and MOVED with that primary's address; with membership validated, Lettuce refused to connect to
                // it until the next refresh, and the breaker opened on the refusals (MoveHotSlotIT). The addresses come
                // from the cluster's own replies, and the connection still carries our credentials and TLS.
                .validateClusterNodeMembership(false)
                .autoReconnect(true)
                // fail, never queue: a spend in flight when its connection dropped may already have run, and a
                // queued one would be re-sent after the reconnect. NoReplayIT shows that this is what stops the
                // replay in cluster mode (Lettuce's replayFilter alone did not, measured on 6.8)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.builder().timeoutSource(timeouts(settings.commandTimeout())).build())
                .socketOptions(base.getSocketOptions().mutate()
                        .keepAlive(true)
                        .tcpNoDelay(true)
                        .build())
                .build();
    }

    /**
     * Every command's timeout: the command timeout (the check's), unless the call being sent has its own (see
     * {@link #timed}). The check's path never sets one, so its timeout is the fixed one it always was.
     */
    static TimeoutOptions.TimeoutSource timeouts(Duration commandTimeout) {
        long fixedNanos = commandTimeout.toNanos();
        return new TimeoutOptions.TimeoutSource() {
            @Override
            public long getTimeout(RedisCommand<?, ?, ?> command) {
                Duration own = CALL_TIMEOUT.get();
                return own == null ? fixedNanos : own.toNanos();
            }

            @Override
            public TimeUnit getTimeUnit() {
                return TimeUnit.NANOSECONDS;
            }
        };
    }

    private static Duration topologyRefresh(ClientOptions base, ClientSettings settings) {
        if (settings.topologyRefresh() != null) {
            return settings.topologyRefresh();
        }
        if (base instanceof ClusterClientOptions cluster && cluster.getTopologyRefreshOptions().isPeriodicRefreshEnabled()) {
            return cluster.getTopologyRefreshOptions().getRefreshPeriod();
        }
        return ClientSettings.DEFAULT_TOPOLOGY_REFRESH;
    }

    private static final StoreException NOT_CONNECTED =
            new StoreException(StoreException.Kind.UNAVAILABLE, "not_connected", "not connected to the Redis Cluster", null);

    static List<RedisURI> uris(RedisStoreSettings settings) {
        List<RedisURI> uris = new ArrayList<>();
        for (String seed : settings.seeds()) {
            // Lettuce bounds the handshake (HELLO/AUTH) and slot-map reads by the URI's timeout; commands have
            // their own fixed timeout (clientOptions). With the 5 ms command timeout here, a pod's first
            // handshake failed on a cold JVM and, before retries were fixed, it never connected (issue 11).
            RedisURI.Builder uri = RedisURI.builder(RedisURI.create(seed)).withTimeout(settings.connectTimeout());
            if (settings.password() != null) {
                uri = settings.username() != null
                        ? uri.withAuthentication(settings.username(), settings.password().toCharArray())
                        : uri.withPassword(settings.password().toCharArray());
            }
            uris.add(uri.build());
        }
        return uris;
    }

    @Override
    public CompletableFuture<List<Long>> run(LuaScript script, List<String> keys, List<String> args) {
        return run(script, keys, args, null);
    }

    /** @param timeout the call's own timeout, or null for the command timeout (the check's) */
    @Override
    public CompletableFuture<List<Long>> run(LuaScript script, List<String> keys, List<String> args, Duration timeout) {
        RedisAdvancedClusterAsyncCommands<String, String> lane = lanes == null ? null : lanes.here();
        RedisAdvancedClusterAsyncCommands<String, String> commands = lane != null ? lane : this.commands;
        if (commands == null) {
            return CompletableFuture.failedFuture(NOT_CONNECTED);
        }
        CompletableFuture<long[]> first = timed(timeout, () -> commands.dispatch(CommandType.EVALSHA, new IntegerArrayOutput(),
                ScriptArgs.bySha(script, keys, args)));
        return first.exceptionallyCompose(error -> {
            if (unwrap(error) instanceof RedisNoScriptException) {
                return timed(timeout, () -> commands.dispatch(CommandType.EVAL, new IntegerArrayOutput(),
                        ScriptArgs.byBody(script, keys, args)));
            }
            return CompletableFuture.failedFuture(error);
        }).handle((reply, error) -> {
            if (error != null) {
                StoreException failure = translate(script, error);
                refreshTopologySoon(unwrap(error), failure);
                throw failure;
            }
            if (reply == null) {
                throw new IllegalStateException(script + " replied something other than integers");
            }
            return new IntegerReply(reply);
        });
    }

    /**
     * Sends a command with its own timeout. Lettuce asks the client's {@link #timeouts} source for a command's timeout
     * as the command is written, the cluster connection's writer and then the node connection's, both on the sending
     * thread while the node is connected, so the timeout rides a thread-local for that moment. (A command that must
     * wait for a node's first connection is written later, elsewhere, and gets the command timeout: the pod connects
     * to every primary before its first check, so a flush rarely meets that.)
     */
    private static <T> CompletableFuture<T> timed(Duration timeout, Supplier<RedisFuture<T>> send) {
        if (timeout == null) {
            return send.get().toCompletableFuture();
        }
        CALL_TIMEOUT.set(timeout);
        try {
            return send.get().toCompletableFuture();
        } finally {
            CALL_TIMEOUT.remove();
        }
    }

    @Override
    public String shardOf(String redisKey) {
        StatefulRedisClusterConnection<String, String> connection = this.connection;
        if (connection == null) {
            return "unconnected";
        }
        RedisClusterNode owner = connection.getPartitions().getPartitionBySlot(SlotHash.getSlot(redisKey));
        return owner == null ? "unassigned" : shard(owner);
    }

    @Override
    public List<String> shards() {
        StatefulRedisClusterConnection<String, String> connection = this.connection;
        if (connection == null) {
            return List.of();
        }
        List<String> shards = new ArrayList<>();
        for (RedisClusterNode node : connection.getPartitions()) {
            if (owner(node)) {
                shards.add(shard(node));
            }
        }
        return shards;
    }

    private static String shard(RedisClusterNode node) {
        return node.getUri().getHost() + ":" + node.getUri().getPort();
    }

    /** A primary that owns slots: one shard. */
    static boolean owner(RedisClusterNode node) {
        return node.is(RedisClusterNode.NodeFlag.UPSTREAM) && !node.getSlots().isEmpty();
    }

    /**
     * A node that refuses us, drops the connection or times out may have failed over: re-read the slot
     * map now rather than at the next periodic refresh, so checks reach the promoted replica within about
     * a second of its promotion (a timeout: within {@link #TIMEOUT_REFRESH_INTERVAL_NANOS}). An error the
     * script or the credentials raised says nothing about the topology. Rate-limited, off the calling thread;
     * Lettuce's own adaptive triggers (MOVED, ASK, persistent reconnects) add to this.
     */
    private void refreshTopologySoon(Throwable cause, StoreException failure) {
        long interval = refreshInterval(cause, failure);
        if (interval < 0) {
            return;
        }
        long last = lastRefreshNanos.get();
        long now = System.nanoTime();
        if (now - last >= interval && lastRefreshNanos.compareAndSet(last, now)) {
            client.refreshPartitionsAsync();
        }
    }

    /** How long after the last refresh this failure may start another; negative: it never does. */
    static long refreshInterval(Throwable cause, StoreException failure) {
        if (failure.kind() == StoreException.Kind.TIMEOUT) {
            return TIMEOUT_REFRESH_INTERVAL_NANOS;
        }
        if ("access_denied".equals(failure.reason())) {
            return -1;
        }
        if (cause instanceof RedisCommandExecutionException) {
            // a reply of the node: only the cluster's own errors speak of slots moving, not the script's
            String message = String.valueOf(cause.getMessage());
            return TOPOLOGY_ERRORS.stream().anyMatch(message::startsWith) ? REFRESH_INTERVAL_NANOS : -1;
        }
        return REFRESH_INTERVAL_NANOS;
    }

    static StoreException translate(LuaScript script, Throwable error) {
        Throwable cause = unwrap(error);
        if (cause instanceof StoreException store) {
            return store;
        }
        if (cause instanceof RedisCommandTimeoutException || cause instanceof TimeoutException) {
            return new StoreException(StoreException.Kind.TIMEOUT, script + " timed out", null);
        }
        if (isAccessDenial(cause)) {
            return new StoreException(StoreException.Kind.UNAVAILABLE, "access_denied", script + ": the store refused our credentials: " + safeMessage(cause), null);
        }
        if (cause instanceof RedisCommandExecutionException && NODE_STATE_ERRORS.stream().anyMatch(String.valueOf(cause.getMessage())::startsWith)) {
            // the cluster failing over or a node still loading: an outage, as operators read the reason, not a bug
            return new StoreException(StoreException.Kind.UNAVAILABLE, script + ": the node cannot serve it now: " + safeMessage(cause), null);
        }
        if (cause instanceof RedisCommandExecutionException) {
            // an error raised by the script itself is a bug, not an outage: keep its text for the log
            return new StoreException(StoreException.Kind.UNAVAILABLE, "script_error", script + " failed: " + safeMessage(cause), null);
        }
        return new StoreException(StoreException.Kind.UNAVAILABLE, script + ": store unavailable: " + safeMessage(cause), null);
    }

    private static boolean isAccessDenial(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            String message = String.valueOf(t.getMessage());
            if (message.contains("NOAUTH") || message.contains("WRONGPASS") || message.contains("NOPERM")) {
                return true;
            }
        }
        return false;
    }

    /** Redis error texts never carry the password, but a URI might: strip anything that looks like one. */
    static String safeMessage(Throwable cause) {
        String message = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        return redact(message);
    }

    public static String redact(String text) {
        return text.replaceAll("(?i)(rediss?://)[^@/\\s]*@", "$1****@");
    }

    private static List<String> redacted(List<String> seeds) {
        return seeds.stream().map(RedisCounterStore::redact).toList();
    }

    private static Throwable unwrap(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof CancellationException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /** The live Lettuce connection, for the few callers (pod registry, usage reads) that need plain commands. */
    public StatefulRedisClusterConnection<String, String> connection() {
        StatefulRedisClusterConnection<String, String> connection = this.connection;
        if (connection == null) {
            throw NOT_CONNECTED;
        }
        return connection;
    }

    /**
     * Stops connecting and closes whatever is open. A connect still in flight is cut by the client's
     * shutdown when the store made the client (a handed client is its owner's to shut down); a connection
     * that arrives after this is closed by {@link #settle}.
     */
    @Override
    public void close() {
        StatefulRedisClusterConnection<String, String> open;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            open = connection;
        }
        connector.shutdownNow();
        if (lanes != null) {
            lanes.close();
        }
        if (open != null) {
            open.close();
        }
        if (resources != null) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            resources.shutdown(0, 2, TimeUnit.SECONDS);
            resources.timer().stop();
        }
        firstOutcome.complete(null);
    }
}
