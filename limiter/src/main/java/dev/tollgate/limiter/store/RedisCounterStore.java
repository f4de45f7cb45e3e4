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
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;

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

    private final RedisClusterClient client;
    private final ClientResources resources;
    private final StatefulRedisClusterConnection<String, String> connection;
    private final RedisAdvancedClusterAsyncCommands<String, String> commands;

    private RedisCounterStore(RedisClusterClient client, ClientResources resources,
                              StatefulRedisClusterConnection<String, String> connection) {
        this.client = client;
        this.resources = resources;
        this.connection = connection;
        this.commands = connection.async();
    }

    public static RedisCounterStore connect(RedisStoreSettings settings) {
        ClientResources resources = DefaultClientResources.create();
        RedisClusterClient client = RedisClusterClient.create(resources, uris(settings));
        client.setOptions(clientOptions(settings));
        try {
            StatefulRedisClusterConnection<String, String> connection = client.connect();
            return new RedisCounterStore(client, resources, connection);
        } catch (RuntimeException e) {
            client.shutdown();
            resources.shutdown();
            throw new StoreException(StoreException.Kind.UNAVAILABLE,
                    "cannot connect to the Redis Cluster at " + settings.seeds() + ": " + safeMessage(e), null);
        }
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
                throw translate(script, error);
            }
            return longs(reply);
        });
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
        if (cause instanceof RedisCommandExecutionException && !isAccessDenial(cause)) {
            // an error raised by the script itself is a bug, not an outage: keep its text for the log
            return new StoreException(StoreException.Kind.UNAVAILABLE, script + " failed: " + safeMessage(cause), null);
        }
        return new StoreException(StoreException.Kind.UNAVAILABLE, script + ": store unavailable: " + safeMessage(cause), null);
    }

    private static boolean isAccessDenial(Throwable cause) {
        String message = String.valueOf(cause.getMessage());
        return message.startsWith("NOAUTH") || message.startsWith("WRONGPASS") || message.startsWith("NOPERM");
    }

    /** Redis error texts never carry the password, but a URI might: strip anything that looks like one. */
    static String safeMessage(Throwable cause) {
        String message = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        return message.replaceAll("(rediss?://)[^@/\\s]*@", "$1****@");
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
        return connection;
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        resources.shutdown(0, 2, java.util.concurrent.TimeUnit.SECONDS);
    }
}
