package dev.tollgate.testsupport.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.ConnectionFuture;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * Talks to one node at a time with Lettuce's plain (non-cluster) client, to build the cluster and to ask
 * each node for its own opinion. A fresh connection per call, because nodes get killed and frozen under
 * our feet and a cached connection would then hang or auto-reconnect at the wrong moment.
 */
final class AdminClient implements AutoCloseable {

    static final String HOST = "127.0.0.1";
    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    private final RedisClient client;
    /** Changed when a test changes the cluster's password at runtime ({@link RedisCluster#changePassword}). */
    private volatile String password;
    private volatile boolean closed;

    AdminClient(String password) {
        this.password = password;
        this.client = RedisClient.create();
        client.setOptions(ClientOptions.builder()
                .autoReconnect(false)
                .socketOptions(SocketOptions.builder().connectTimeout(Duration.ofMillis(500)).build())
                .timeoutOptions(TimeoutOptions.enabled(TIMEOUT))
                .build());
    }

    String password() {
        return password;
    }

    void password(String newPassword) {
        this.password = newPassword;
    }

    <T> T call(int port, Function<RedisCommands<String, String>, T> command) {
        String password = this.password;
        RedisURI.Builder uri = RedisURI.builder().withHost(HOST).withPort(port).withTimeout(TIMEOUT);
        if (password != null) {
            uri.withPassword(password.toCharArray());
        }
        try (StatefulRedisConnection<String, String> connection = connect(uri.build())) {
            return command.apply(connection.sync());
        }
    }

    /**
     * Lettuce's blocking connect waits without a deadline of its own, and forever once {@link #close()} (the
     * cluster's shutdown hook, on a Ctrl-C) has shut the client down under a start that is still forming the
     * cluster; bounded here, and refused after close.
     */
    private StatefulRedisConnection<String, String> connect(RedisURI uri) {
        if (closed) {
            throw new IllegalStateException("the admin client is closed: the cluster is being stopped");
        }
        ConnectionFuture<StatefulRedisConnection<String, String>> connecting = client.connectAsync(StringCodec.UTF8, uri);
        try {
            return connecting.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException runtime ? runtime : new RedisConnectionException("connect failed", e.getCause());
        } catch (TimeoutException e) {
            // a connection that still comes is closed, not leaked
            connecting.thenAccept(StatefulRedisConnection::close);
            throw new RedisConnectionException("no connection to " + uri.getHost() + ":" + uri.getPort() + " within " + TIMEOUT.toMillis() + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RedisConnectionException("interrupted while connecting", e);
        }
    }

    ClusterView view(int port) {
        return ClusterView.parse(call(port, RedisCommands::clusterNodes));
    }

    /** The value of one {@code field:value} line of an INFO-style reply, or null. */
    static String field(String info, String name) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1).trim();
            }
        }
        return null;
    }

    @Override
    public void close() {
        closed = true;
        client.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
