package dev.tollgate.limiter.store;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

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
    private static final long REFRESH_INTERVAL_NANOS = 250_000_000L;
    private static final Duration RECONNECT_INTERVAL = Duration.ofSeconds(1);

    private final RedisClusterClient client;
    private final ClientResources resources;
    private final List<String> seeds;
    private volatile StatefulRedisClusterConnection<String, String> connection;
    private volatile RedisAdvancedClusterAsyncCommands<String, String> commands;
    private volatile boolean closed;
    private int connectFailures;
    /** When the slot map was last re-read because a node failed us: at most one refresh per interval. */
    private final AtomicLong lastRefreshNanos = new AtomicLong(System.nanoTime());

    private RedisCounterStore(RedisClusterClient client, ClientResources resources, List<String> seeds) {
        this.client = client;
        this.resources = resources;
        this.seeds = seeds;
    }

    /**
     * Connects to the cluster. A pod must serve even when its store is down at start-up (requirement
     * #4), so a failed first attempt is logged and retried every second in the background; until a
     * connection is up every script call fails as unavailable and the rules' fail modes answer.
     */
    public static RedisCounterStore connect(RedisStoreSettings settings) {
        ClientResources resources = DefaultClientResources.create();
        RedisClusterClient client = RedisClusterClient.create(resources, uris(settings));
        client.setOptions(clientOptions(settings));
        RedisCounterStore store = new RedisCounterStore(client, resources, redacted(settings.seeds()));
        store.tryConnect();
        return store;
    }

    private void tryConnect() {
        if (closed) {
            return;
        }
        try {
            StatefulRedisClusterConnection<String, String> opened = client.connect();
            this.commands = opened.async();
            this.connection = opened;
            log.info("connected to the Redis Cluster at {}", seeds);
        } catch (RuntimeException e) {
            // once at WARN, then quietly: the pod keeps serving, and tollgate.store.calls{outcome=not_connected} alerts
            boolean first = connectFailures++ == 0;
            String reason = isAccessDenial(e) ? "the cluster refused our credentials" : safeMessage(e);
            if (first) {
                log.warn("cannot connect to the Redis Cluster at {}: {}; retrying every {} s, fail modes apply meanwhile",
                        seeds, reason, RECONNECT_INTERVAL.toSeconds());
            } else {
                log.debug("still cannot connect to the Redis Cluster at {}: {}", seeds, reason);
            }
            resources.eventExecutorGroup().schedule(this::tryConnect, RECONNECT_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    public boolean isConnected() {
        return connection != null;
    }

    static ClusterClientOptions clientOptions(RedisStoreSettings settings) {
        ClusterTopologyRefreshOptions topology = ClusterTopologyRefreshOptions.builder()
                .enablePeriodicRefresh(settings.topologyRefresh())
                .enableAllAdaptiveRefreshTriggers()
                .adaptiveRefreshTriggersTimeout(Duration.ofMillis(500))
                .refreshTriggersReconnectAttempts(2)
                .dynamicRefreshSources(true)
                .closeStaleConnections(true)
                .build();
        return ClusterClientOptions.builder()
                .topologyRefreshOptions(topology)
                .maxRedirects(3)
                .autoReconnect(true)
                // fail, never queue: a spend in flight when its connection dropped may already have run, and a
                // queued one would be re-sent after the reconnect. NoReplayIT shows that this is what stops the
                // replay in cluster mode (Lettuce's replayFilter alone did not, measured on 6.8)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.builder().fixedTimeout(settings.commandTimeout()).build())
                .socketOptions(SocketOptions.builder()
                        .connectTimeout(Duration.ofMillis(Math.max(200, settings.commandTimeout().toMillis() * 20)))
                        .keepAlive(true)
                        .tcpNoDelay(true)
                        .build())
                .build();
    }

    private static final StoreException NOT_CONNECTED =
            new StoreException(StoreException.Kind.UNAVAILABLE, "not_connected", "not connected to the Redis Cluster", null);

    private static List<RedisURI> uris(RedisStoreSettings settings) {
        List<RedisURI> uris = new ArrayList<>();
        for (String seed : settings.seeds()) {
            RedisURI.Builder uri = RedisURI.builder(RedisURI.create(seed)).withTimeout(settings.commandTimeout());
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
        RedisAdvancedClusterAsyncCommands<String, String> commands = this.commands;
        if (commands == null) {
            return CompletableFuture.failedFuture(NOT_CONNECTED);
        }
        String[] keyArray = keys.toArray(String[]::new);
        String[] argArray = args.toArray(String[]::new);
        CompletableFuture<List<Object>> first = commands.<List<Object>>evalsha(
                script.sha1(), ScriptOutputType.MULTI, keyArray, argArray).toCompletableFuture();
        return first.exceptionallyCompose(error -> {
            if (unwrap(error) instanceof RedisNoScriptException) {
                return commands.<List<Object>>eval(script.body(), ScriptOutputType.MULTI, keyArray, argArray).toCompletableFuture();
            }
            return CompletableFuture.failedFuture(error);
        }).handle((reply, error) -> {
            if (error != null) {
                StoreException failure = translate(script, error);
                refreshTopologySoon();
                throw failure;
            }
            return longs(reply);
        });
    }

    @Override
    public String shardOf(String redisKey) {
        StatefulRedisClusterConnection<String, String> connection = this.connection;
        if (connection == null) {
            return "unconnected";
        }
        RedisClusterNode owner = connection.getPartitions().getPartitionBySlot(SlotHash.getSlot(redisKey));
        return owner == null ? "unassigned" : owner.getUri().getHost() + ":" + owner.getUri().getPort();
    }

    /**
     * A node that times out or refuses may have failed over: re-read the slot map now rather than at the
     * next periodic refresh, so checks reach the promoted replica within about a second of its promotion.
     * Rate-limited, and off the calling thread.
     */
    private void refreshTopologySoon() {
        long last = lastRefreshNanos.get();
        long now = System.nanoTime();
        if (now - last >= REFRESH_INTERVAL_NANOS && lastRefreshNanos.compareAndSet(last, now)) {
            client.refreshPartitionsAsync();
        }
    }

    private static List<Long> longs(List<Object> reply) {
        List<Long> values = new ArrayList<>(reply.size());
        for (Object value : reply) {
            values.add(((Number) value).longValue());
        }
        return values;
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

    static String redact(String text) {
        return text.replaceAll("(rediss?://)[^@/\\s]*@", "$1****@");
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

    @Override
    public void close() {
        closed = true;
        if (connection != null) {
            connection.close();
        }
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
