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
 *                             and, since nothing was sent, moves the check on to its key's next pod. Null: half the
 *                             deadline, at most 500 ms, which leaves the other half for that next pod. A lost SYN is
 *                             resent only after a second, so a connect not done by then will not be done in time.
 *                             Never longer than the deadline: the deadline would always end the connect first
 * @param idleTimeout          a connection idle this long is closed (below any balancer's or server's idle timeout)
 * @param podDownFor           how long a pod that refused or timed out a connection, or began no answer within a
 *                             check's deadline, is tried only after its keys' other pods
 * @param eventLoopThreads     the client's own I/O threads (it reads the answers' JSON there too)
 */
public record ClientSettings(Duration deadline, FailMode failMode, int maxConnectionsPerPod, Duration connectTimeout,
                             Duration idleTimeout, Duration podDownFor, int eventLoopThreads) {

    /** Ample for any healthy connect, cross-zone included: a deadline of seconds does not need a connect of seconds. */
    private static final Duration LONGEST_DEFAULT_CONNECT = Duration.ofMillis(500);
    private static final Duration SHORTEST_CONNECT = Duration.ofMillis(1);
    // both above DEFAULTS: its constructor reads them while the class initializes

    public static final ClientSettings DEFAULTS = new ClientSettings(Duration.ofMillis(100), FailMode.ALLOW, 32,
            null, Duration.ofSeconds(30), Duration.ofSeconds(2),
            Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors() / 2)));

    public ClientSettings {
        Objects.requireNonNull(failMode, "failMode: ALLOW, DENY or ERROR");
        positive("deadline", deadline);
        if (connectTimeout == null) {
            connectTimeout = max(SHORTEST_CONNECT, min(LONGEST_DEFAULT_CONNECT, deadline.dividedBy(2)));
        }
        positive("connectTimeout", connectTimeout);
        // Netty counts whole milliseconds, and 0 would mean no connect timeout at all
        if (connectTimeout.compareTo(SHORTEST_CONNECT) < 0) {
            throw new IllegalArgumentException("connectTimeout must be at least 1 ms, was " + connectTimeout);
        }
        if (connectTimeout.compareTo(deadline) > 0) {
            throw new IllegalArgumentException("connectTimeout (" + connectTimeout.toMillis() + " ms) is longer than the deadline ("
                    + deadline.toMillis() + " ms): the deadline would end every slow connect first, so a pod that drops "
                    + "connects would never be passed over for the key's next pod in time. Leave connectTimeout unset (half "
                    + "the deadline, at most 500 ms), set it to at most half the deadline, or raise the deadline");
        }
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

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    private static void positive(String name, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be a positive duration, was " + value);
        }
    }
}
