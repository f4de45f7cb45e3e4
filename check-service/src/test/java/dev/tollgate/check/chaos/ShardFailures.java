package dev.tollgate.check.chaos;

import dev.tollgate.limiter.Limiter;
import dev.tollgate.testsupport.redis.Node;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Every store call that a pod's shard breakers counted as failed, or saw answer only after the store timeout, with
 * when it ended and how long it took: read from the breakers' own events, so each is a call the pod saw fail or
 * come late, not one guessed from an answer's latency.
 *
 * <p>At production's 5 ms timeout a call to a healthy shard times out whenever the box delays the pod, Lettuce or
 * {@code redis-server} by 5 ms, far too short a stall for {@link BoxStalls} to count (on the suite's shared
 * 2-core box, from none to tens in one run's few seconds of standard load, as the box's other work comes and goes). The {@link Ledger} takes each of them on a
 * shard no injected fault hits as the box's fault on that shard: its fail-mode answer is what docs/failure-modes.md promises
 * for "shard timed out", and the invariants excuse it as they excuse a stall's. A call that the box delays past its
 * timeout can still be answered before the timeout fires (the timer's thread waits for a core too): it is counted
 * as a success, yet the check that waited on it may have been answered by its deadline meanwhile (CI saw one such
 * fail-open fallback on a healthy shard, with no failed call near it). It is the same delay, so it is counted too.
 */
final class ShardFailures implements AutoCloseable {

    /**
     * @param pod          the pod's index
     * @param shard        the breaker's name: the primary's {@code host:port}
     * @param endNanos     {@link System#nanoTime()} when the pod's breaker was told
     * @param elapsedNanos how long the call took, as the engine measured it for the breaker
     * @param answered     the store answered, after the timeout; else the call failed
     */
    record Failure(int pod, String shard, long endNanos, long elapsedNanos, boolean answered) {

        long startNanos() {
            return endNanos - elapsedNanos;
        }
    }

    private final Map<String, Node> nodes;
    private final Collection<Failure> failures = new ConcurrentLinkedQueue<>();
    /** A breaker's event consumers cannot be removed: they stop recording instead. */
    private volatile boolean watching = true;

    private ShardFailures(Map<String, Node> nodes) {
        this.nodes = nodes;
    }

    /**
     * Watches every pod's breaker of each primary. The pods build them before they are ready ({@link Limiter#prepare()}),
     * so each is there to watch; a primary that a failover promotes later is not watched.
     *
     * @param timeout the pods' store timeout: a successful call that took longer counts as late
     */
    static ShardFailures watch(Pods pods, List<Node> primaries, Duration timeout) {
        Map<String, Node> nodes = new LinkedHashMap<>();
        primaries.forEach(node -> nodes.put(node.hostAndPort(), node));
        ShardFailures watch = new ShardFailures(nodes);
        for (Pods.Pod pod : pods.all()) {
            Map<String, CircuitBreaker> breakers = pod.context().getBean(Limiter.class).breakers().all();
            for (String shard : nodes.keySet()) {
                CircuitBreaker breaker = breakers.get(shard);
                if (breaker == null) {
                    throw new IllegalStateException(pod.id() + " has no breaker for shard " + shard + " yet, only for " + breakers.keySet());
                }
                breaker.getEventPublisher().onError(event -> watch.record(pod, shard, event.getElapsedDuration(), false));
                breaker.getEventPublisher().onSuccess(event -> {
                    if (event.getElapsedDuration().compareTo(timeout) > 0) {
                        watch.record(pod, shard, event.getElapsedDuration(), true);
                    }
                });
            }
        }
        return watch;
    }

    private void record(Pods.Pod pod, String shard, Duration elapsed, boolean answered) {
        if (watching) {
            failures.add(new Failure(pod.index(), shard, System.nanoTime(), elapsed.toNanos(), answered));
        }
    }

    List<Failure> failures() {
        return new ArrayList<>(failures);
    }

    Node node(String shard) {
        return nodes.get(shard);
    }

    @Override
    public void close() {
        watching = false;
    }
}
