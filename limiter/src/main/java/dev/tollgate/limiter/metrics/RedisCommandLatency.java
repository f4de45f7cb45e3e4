package dev.tollgate.limiter.metrics;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.event.EventBus;
import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import reactor.core.Disposable;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Lettuce's command latency, from write to complete reply, per Redis node and command type: which shard
 * is slow, which the engine's own {@link LimiterMetrics#STORE_CALLS} (per script, across shards) cannot tell.
 * Handed to Lettuce's client resources as its {@link CommandLatencyRecorder}, in place of Lettuce's
 * Micrometer recorder, whose {@code remote} tag is a socket address's {@code toString()}, whose {@code local}
 * tag exists only to say "any", which records first-response and completion as two timers, and whose
 * histogram is a percentile histogram of ~70 buckets.
 *
 * <p>Tags are bounded: {@code node} is the {@code host:port} the client connected to (a cluster node, as
 * the slot map names it), {@code command} Lettuce's command type (EVALSHA, CLUSTER, PING...). The
 * buckets are the engine's, {@link LimiterMetrics#LATENCY_BUCKETS}. A node that leaves the cluster
 * ({@link #follow(EventBus)}: Lettuce's topology change events) takes its series with it, so a failover
 * leaves no series of a dead primary behind.
 *
 * <p>On the check's path: one lookup in two maps of a few entries each, no allocation once a node's
 * timers exist.
 */
public final class RedisCommandLatency implements CommandLatencyRecorder {

    public static final String COMMANDS = "tollgate.redis.commands";

    private final MeterRegistry registry;
    private final Map<SocketAddress, Map<ProtocolKeyword, Timer>> timers = new ConcurrentHashMap<>();

    public RedisCommandLatency(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void recordCommandLatency(SocketAddress local, SocketAddress remote, ProtocolKeyword commandType,
                                     long firstResponseLatency, long completionLatency) {
        Map<ProtocolKeyword, Timer> byCommand = timers.get(remote);
        if (byCommand == null) {
            byCommand = timers.computeIfAbsent(remote, address -> new ConcurrentHashMap<>());
        }
        Timer timer = byCommand.get(commandType);
        if (timer == null) {
            timer = byCommand.computeIfAbsent(commandType, command -> Timer.builder(COMMANDS)
                    .description("Redis commands from write to complete reply (Lettuce), per cluster node and command type")
                    .tag("node", node(remote))
                    .tag("command", command.toString())
                    .serviceLevelObjectives(LimiterMetrics.LATENCY_BUCKETS)
                    .register(registry));
        }
        timer.record(completionLatency, TimeUnit.NANOSECONDS);
    }

    /** Removes the series of nodes that left the cluster whenever Lettuce publishes a new topology; dispose to stop. */
    public Disposable follow(EventBus events) {
        return events.get().ofType(ClusterTopologyChangedEvent.class).subscribe(change -> keepOnly(change.after()));
    }

    /** Drops the series of every node not among these. */
    void keepOnly(Collection<RedisClusterNode> nodes) {
        Set<String> present = nodes.stream().map(RedisClusterNode::getUri).map(RedisCommandLatency::node).collect(Collectors.toSet());
        timers.entrySet().removeIf(entry -> {
            if (present.contains(node(entry.getKey()))) {
                return false;
            }
            entry.getValue().values().forEach(registry::remove);
            return true;
        });
    }

    /** host:port as the client addressed the node: the host string it was given (a name or an IP), never a lookup. */
    static String node(SocketAddress address) {
        return address instanceof InetSocketAddress inet ? inet.getHostString() + ":" + inet.getPort() : String.valueOf(address);
    }

    private static String node(RedisURI uri) {
        return uri.getHost() + ":" + uri.getPort();
    }
}
