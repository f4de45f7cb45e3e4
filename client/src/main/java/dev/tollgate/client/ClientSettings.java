package dev.tollgate.client;

import java.time.Duration;
import java.util.Objects;

/**
 * How the client calls Tollgate.
 *
 * @param deadline             the longest a check takes, connect and every pod tried included; then the fail mode
 *                             answers. Above check-service's own {@code tollgate.check.deadline} (25 ms by default),
 *                             so that a slow store is answered by the rule's fail mode, not the client's
 * @param failMode             what to answer when Tollgate is unreachable, late or failing
 * @param maxConnectionsPerPod keep-alive connections held per pod at most; checks beyond wait for one, within the deadline
 * @param connectTimeout       a TCP connect slower than this marks the pod failed (a pod whose address stopped answering)
 * @param idleTimeout          a connection idle this long is closed (below any balancer's or server's idle timeout)
 * @param podDownFor           how long a pod that refused a connection is tried only after its keys' other pods
 * @param eventLoopThreads     the client's own I/O threads (it reads the answers' JSON there too)
 */
public record ClientSettings(Duration deadline, FailMode failMode, int maxConnectionsPerPod, Duration connectTimeout,
                             Duration idleTimeout, Duration podDownFor, int eventLoopThreads) {

    public static final ClientSettings DEFAULTS = new ClientSettings(Duration.ofMillis(100), FailMode.ALLOW, 32,
            Duration.ofMillis(500), Duration.ofSeconds(30), Duration.ofSeconds(2),
            Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors() / 2)));

    public ClientSettings {
        Objects.requireNonNull(failMode, "failMode: ALLOW, DENY or ERROR");
        positive("deadline", deadline);
        positive("connectTimeout", connectTimeout);
        positive("idleTimeout", idleTimeout);
        positive("podDownFor", podDownFor);
        if (maxConnectionsPerPod < 1) {
            throw new IllegalArgumentException("maxConnectionsPerPod must be at least 1, was " + maxConnectionsPerPod);
        }
        if (eventLoopThreads < 1) {
            throw new IllegalArgumentException("eventLoopThreads must be at least 1, was " + eventLoopThreads);
        }
        if (connectTimeout.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("connectTimeout is absurdly long: " + connectTimeout);
        }
    }

    private static void positive(String name, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be a positive duration, was " + value);
        }
    }
}
