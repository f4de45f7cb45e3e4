package dev.tollgate.check.chaos;

import java.util.Set;

/**
 * One fault of a scenario: which limits it may degrade and when. From {@link #startNanos} until {@link #clearedNanos}
 * plus the recovery budget, a limit it hits may answer by its fail mode; after that it must answer from the store.
 * A fault clears when the cluster can serve again: a replica promoted, a node thawed, the password restored.
 */
final class Fault {

    /**
     * Done by the scenario, or suffered by the box the suite runs on: a stall of the whole JVM (see {@link BoxStalls}),
     * or one store call to a shard no injected fault hits that outlasted a timeout within the box's scheduling noise
     * (see {@link ShardFailures}).
     */
    enum Origin { INJECTED, STALL, SLOW_CALL }

    private final String name;
    private final Origin origin;
    /** The keys whose limits it hits (those on the faulted shard); null when it hits every shard. */
    private final Set<String> keys;
    private final long startNanos;
    private volatile long clearedNanos = -1;

    Fault(String name, Set<String> keys, long startNanos) {
        this(name, Origin.INJECTED, keys, startNanos);
    }

    Fault(String name, Origin origin, Set<String> keys, long startNanos) {
        this.name = name;
        this.origin = origin;
        this.keys = keys == null ? null : Set.copyOf(keys);
        this.startNanos = startNanos;
    }

    String name() {
        return name;
    }

    boolean hits(Target target) {
        return hits(target.key());
    }

    boolean hits(String key) {
        return keys == null || keys.contains(key);
    }

    boolean injected() {
        return origin == Origin.INJECTED;
    }

    /** The JVM did not run: every request in flight was delayed by it. */
    boolean stall() {
        return origin == Origin.STALL;
    }

    boolean everywhere() {
        return keys == null;
    }

    long startNanos() {
        return startNanos;
    }

    /** The fault is over from now: the recovery budget starts. */
    void cleared() {
        clearedNanos = System.nanoTime();
    }

    void clearedAt(long nanos) {
        clearedNanos = nanos;
    }

    boolean isCleared() {
        return clearedNanos >= 0;
    }

    long clearedNanos() {
        if (clearedNanos < 0) {
            throw new IllegalStateException("fault " + name + " never cleared");
        }
        return clearedNanos;
    }

    @Override
    public String toString() {
        return name;
    }
}
