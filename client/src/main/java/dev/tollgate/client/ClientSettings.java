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
 *                             Always shorter than the deadline: else the deadline would end the connect first, and
 *                             a pod that drops SYNs would neither be passed over in time nor marked down
 * @param idleTimeout          a connection idle this long is closed (below any balancer's or server's idle timeout)
 * @param podDownFor           how long a pod that refused or timed out a connection, began no answer within a
 *                             check's deadline, or answered a server error, is tried only after its keys' other pods;
 *                             then one check probes it, and each failed probe doubles the time
 * @param podDownForAtMost     the longest a failed pod waits for its next probe (at least {@code podDownFor}): how long a
 *                             pod that came back may still go without its keys. Null: 15 s, or {@code podDownFor}
 *                             when that is longer
 * @param eventLoopThreads     the client's own I/O threads (it reads the answers' JSON there too)
 */
public record ClientSettings(Duration deadline, FailMode failMode, int maxConnectionsPerPod, Duration connectTimeout,
                             Duration idleTimeout, Duration podDownFor, Duration podDownForAtMost, int eventLoopThreads) {

    /** Ample for any healthy connect, cross-zone included: a deadline of seconds does not need a connect of seconds. */
    private static final Duration LONGEST_DEFAULT_CONNECT = Duration.ofMillis(500);
    private static final Duration SHORTEST_CONNECT = Duration.ofMillis(1);
    private static final Duration DEFAULT_LONGEST_DOWN = Duration.ofSeconds(15);
    // all above DEFAULTS: its constructor reads them while the class initializes

    public static final ClientSettings DEFAULTS = new ClientSettings(Duration.ofMillis(100), FailMode.ALLOW, 32,
            null, Duration.ofSeconds(30), Duration.ofSeconds(1), null,
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
        if (connectTimeout.compareTo(deadline) >= 0) {
            throw new IllegalArgumentException("connectTimeout (" + connectTimeout.toMillis() + " ms) is not shorter than the deadline ("
                    + deadline.toMillis() + " ms): the deadline would end every slow connect first, so a pod that drops "
                    + "connects would never be passed over for the key's next pod in time, nor marked down. Leave connectTimeout "
                    + "unset (half the deadline, at most 500 ms), set it to at most half the deadline, or raise the deadline "
                    + "(to at least 2 ms)");
        }
        positive("idleTimeout", idleTimeout);
        positive("podDownFor", podDownFor);
        if (podDownForAtMost == null) {
            podDownForAtMost = max(DEFAULT_LONGEST_DOWN, podDownFor);
        }
        positive("podDownForAtMost", podDownForAtMost);
        if (podDownForAtMost.compareTo(podDownFor) < 0) {
            throw new IllegalArgumentException("podDownForAtMost (" + podDownForAtMost.toMillis() + " ms) is shorter than podDownFor ("
                    + podDownFor.toMillis() + " ms): it caps the doubling of podDownFor after each failed probe, so set it to at "
                    + "least podDownFor");
        }
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
