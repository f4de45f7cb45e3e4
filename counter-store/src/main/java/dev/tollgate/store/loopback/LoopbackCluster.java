package dev.tollgate.store.loopback;

import dev.tollgate.store.InMemoryCounterStore;
import dev.tollgate.store.LuaScript;
import io.lettuce.core.cluster.SlotHash;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisArrayAggregator;
import io.netty.handler.codec.redis.RedisBulkStringAggregator;
import io.netty.handler.codec.redis.RedisDecoder;
import io.netty.handler.codec.redis.RedisEncoder;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A Redis Cluster of {@value #NODES} primaries on loopback whose scripts are {@link InMemoryCounterStore}'s (one store behind
 * every node, as the slots split them): it speaks just enough RESP for
 * Lettuce's cluster client (the RESP3 handshake, the slot map, SCRIPT LOAD, EVALSHA and EVAL) and answers each script call
 * with the in-memory store's reply. A starting pod's warm-up points a {@code RedisCounterStore} at it, so that the whole
 * path of a store call runs (Lettuce's encoding, its event loop, the reply's parsing, the hop back to the check) while not
 * one byte reaches the region's Redis. It serves that warm-up and tests; it is no Redis.
 */
public final class LoopbackCluster implements AutoCloseable {

    /** The scripts it runs, by the SHA-1 that EVALSHA names: those the in-memory store knows. */
    private static final Map<String, LuaScript> SCRIPTS = Stream.of("spend", "refund", "peek", "count_after", "pod_heartbeat", "hot_keys_publish")
            .map(LuaScript::load)
            .collect(Collectors.toUnmodifiableMap(LuaScript::sha1, Function.identity()));

    /** As many primaries as the smallest production cluster: the pod's per-shard code (breakers, slot map, one connection each) runs as it will. */
    public static final int NODES = 3;

    private final InMemoryCounterStore store;
    private final EventLoopGroup loop;
    private final List<Channel> servers = new ArrayList<>(NODES);

    private LoopbackCluster(InMemoryCounterStore store) throws InterruptedException {
        this.store = store;
        this.loop = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("tollgate-loopback-redis", true), NioIoHandler.newFactory());
        try {
            for (int node = 0; node < NODES; node++) {
                int self = node;
                servers.add(new ServerBootstrap()
                        .group(loop)
                        .channel(NioServerSocketChannel.class)
                        .childHandler(new ChannelInitializer<SocketChannel>() {
                            @Override
                            protected void initChannel(SocketChannel channel) {
                                channel.pipeline().addLast(new RedisDecoder(), new RedisBulkStringAggregator(), new RedisArrayAggregator(),
                                        new RedisEncoder(), new Commands(LoopbackCluster.this, self));
                            }
                        })
                        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                        .sync()
                        .channel());
            }
        } catch (InterruptedException | RuntimeException e) {
            servers.forEach(Channel::close);
            loop.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            throw e;
        }
    }

    /** Listens on free loopback ports, one a node, on one thread of its own, and answers every node from {@code store}. */
    public static LoopbackCluster start(InMemoryCounterStore store) {
        try {
            return new LoopbackCluster(store);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while binding the loopback cluster", e);
        }
    }

    /** The seed a cluster client is given: {@code redis://127.0.0.1:<port>} of the first node (the client reads the others from it). */
    public String uri() {
        InetSocketAddress first = address(0);
        return "redis://" + first.getAddress().getHostAddress() + ":" + first.getPort();
    }

    private InetSocketAddress address(int node) {
        return (InetSocketAddress) servers.get(node).localAddress();
    }

    @Override
    public void close() {
        servers.forEach(server -> server.close().awaitUninterruptibly(2, TimeUnit.SECONDS));
        loop.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
    }

    /** The nodes as {@code CLUSTER NODES} writes them, asked of node {@code self}: the slots split evenly, in order. */
    private String clusterNodes(int self) {
        StringBuilder nodes = new StringBuilder();
        for (int node = 0; node < NODES; node++) {
            InetSocketAddress address = address(node);
            int first = node * SlotHash.SLOT_COUNT / NODES;
            int last = (node + 1) * SlotHash.SLOT_COUNT / NODES - 1;
            nodes.append(String.format(Locale.ROOT, "%040x %s:%d@%d %s - 0 0 %d connected %d-%d\n", node + 1,
                    address.getAddress().getHostAddress(), address.getPort(), address.getPort() + 10_000,
                    node == self ? "myself,master" : "master", node + 1, first, last));
        }
        return nodes.toString();
    }

    /** What a Redis 7 answers to {@code HELLO 3}, as RESP3 writes a map (the RESP2 codec has no map to encode it with). */
    private static final byte[] HELLO_3 = ("%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$5\r\n7.0.0\r\n$5\r\nproto\r\n:3\r\n"
            + "$2\r\nid\r\n:1\r\n$4\r\nmode\r\n$7\r\ncluster\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$7\r\nmodules\r\n*0\r\n")
            .getBytes(StandardCharsets.US_ASCII);

    /** Answers one connection's commands in order, each whole before the next is read, as a Redis node does. */
    private static final class Commands extends SimpleChannelInboundHandler<RedisMessage> {

        private final LoopbackCluster cluster;
        private final int node;

        Commands(LoopbackCluster cluster, int node) {
            this.cluster = cluster;
            this.node = node;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, RedisMessage message) {
            if (!(message instanceof ArrayRedisMessage array) || array.children().isEmpty()) {
                ctx.writeAndFlush(new ErrorRedisMessage("ERR the loopback cluster takes commands as arrays of bulk strings"));
                return;
            }
            List<String> words = new ArrayList<>(array.children().size());
            for (RedisMessage child : array.children()) {
                if (!(child instanceof FullBulkStringRedisMessage bulk) || bulk.isNull()) {
                    ctx.writeAndFlush(new ErrorRedisMessage("ERR the loopback cluster takes commands as arrays of bulk strings"));
                    return;
                }
                words.add(bulk.content().toString(StandardCharsets.UTF_8));
            }
            String command = words.get(0).toUpperCase(Locale.ROOT);
            String sub = words.size() > 1 ? words.get(1).toUpperCase(Locale.ROOT) : "";
            switch (command) {
                case "HELLO" -> {
                    if (words.size() > 1 && !sub.equals("3")) {
                        ctx.writeAndFlush(new ErrorRedisMessage("NOPROTO the loopback cluster speaks RESP3 only"));
                    } else {
                        ByteBuf hello = ctx.alloc().buffer(HELLO_3.length).writeBytes(HELLO_3);
                        ctx.writeAndFlush(hello);
                    }
                }
                case "PING" -> ctx.writeAndFlush(new SimpleStringRedisMessage("PONG"));
                case "CLIENT", "READONLY", "READWRITE", "SELECT", "AUTH" -> ctx.writeAndFlush(new SimpleStringRedisMessage("OK"));
                case "QUIT" -> ctx.writeAndFlush(new SimpleStringRedisMessage("OK")).addListener(done -> ctx.close());
                case "CLUSTER" -> ctx.writeAndFlush(sub.equals("NODES")
                        ? bulk(ctx, cluster.clusterNodes(node)) : new ErrorRedisMessage("ERR the loopback cluster answers CLUSTER NODES only"));
                case "INFO" -> ctx.writeAndFlush(bulk(ctx, "# Server\r\nredis_version:7.0.0\r\nredis_mode:cluster\r\n"
                        + "# Clients\r\nconnected_clients:1\r\n# Replication\r\nrole:master\r\nmaster_repl_offset:0\r\n"));
                case "SCRIPT" -> ctx.writeAndFlush(sub.equals("LOAD") && words.size() == 3
                        ? loaded(ctx, words.get(2)) : new ErrorRedisMessage("ERR the loopback cluster answers SCRIPT LOAD only"));
                case "EVALSHA" -> ctx.writeAndFlush(words.size() < 3 ? wrongArity(command) : run(ctx, SCRIPTS.get(words.get(1)), words));
                case "EVAL" -> ctx.writeAndFlush(words.size() < 3 ? wrongArity(command) : run(ctx, SCRIPTS.get(LuaScript.sha1Of(words.get(1))), words));
                default -> ctx.writeAndFlush(new ErrorRedisMessage("ERR unknown command '" + words.get(0) + "' on the loopback cluster"));
            }
        }

        private static RedisMessage loaded(ChannelHandlerContext ctx, String body) {
            String sha = LuaScript.sha1Of(body);
            return SCRIPTS.containsKey(sha) ? bulk(ctx, sha) : new ErrorRedisMessage("ERR the loopback cluster runs only Tollgate's own scripts");
        }

        /** {@code EVALSHA sha numkeys key... arg...} (or EVAL with the body) through the in-memory store. */
        private RedisMessage run(ChannelHandlerContext ctx, LuaScript script, List<String> words) {
            if (script == null) {
                return new ErrorRedisMessage("NOSCRIPT No matching script. Please use EVAL.");
            }
            int keyCount;
            try {
                keyCount = Integer.parseInt(words.get(2));
            } catch (NumberFormatException e) {
                return new ErrorRedisMessage("ERR value is not an integer or out of range");
            }
            if (keyCount < 0 || 3 + keyCount > words.size()) {
                return new ErrorRedisMessage("ERR Number of keys can't be greater than number of args");
            }
            List<String> keys = words.subList(3, 3 + keyCount);
            List<String> args = words.subList(3 + keyCount, words.size());
            try {
                List<Long> reply = cluster.store.run(script, keys, args).get();
                List<RedisMessage> children = new ArrayList<>(reply.size());
                for (Long value : reply) {
                    children.add(new IntegerRedisMessage(value));
                }
                return new ArrayRedisMessage(children);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new ErrorRedisMessage("ERR interrupted");
            } catch (ExecutionException | CompletionException e) {
                return new ErrorRedisMessage("ERR " + e.getCause().getMessage());
            }
        }

        private static RedisMessage wrongArity(String command) {
            return new ErrorRedisMessage("ERR wrong number of arguments for '" + command.toLowerCase(Locale.ROOT) + "' command");
        }

        private static RedisMessage bulk(ChannelHandlerContext ctx, String text) {
            return new FullBulkStringRedisMessage(ByteBufUtil.writeUtf8(ctx.alloc(), text));
        }
    }
}
