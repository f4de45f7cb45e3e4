package dev.tollgate.rebalancer.store;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Exactly one active rebalancer: a PostgreSQL session-level advisory lock, held on a dedicated
 * connection for as long as this instance is active. Every instance tries to take it once per cycle;
 * the one that holds it works, the others stand by.
 *
 * <p>The lock lives and dies with its session, and the active instance writes budgets on that same
 * connection. So a write can only commit while the lock is held: an instance that lost its session
 * (killed, partitioned, its backend terminated) fails its next write instead of racing the instance
 * that took over. When the process dies its socket closes, the server ends the session, and another
 * instance takes the lock at its next cycle. A partition that leaves the server's side of the socket
 * open delays that until the server notices the dead peer (its {@code tcp_keepalives_*} settings);
 * budgets simply stay as they are meanwhile.
 */
public final class LeaderLock implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LeaderLock.class);
    private static final int VALIDATION_TIMEOUT_S = 2;

    private final ConnectionSource source;
    private final long key;
    private Connection held;

    public LeaderLock(ConnectionSource source, long key) {
        this.source = source;
        this.key = key;
    }

    /**
     * The connection that holds the lock, taking the lock if it is free; null while another instance
     * holds it or the store cannot be reached. Called from one thread (the cycle's).
     */
    public synchronized Connection hold() {
        if (held != null) {
            try {
                if (held.isValid(VALIDATION_TIMEOUT_S)) {
                    return held;
                }
            } catch (SQLException e) {
                // same as invalid
            }
            log.warn("lost the rebalancer lock: its connection to the rules store is gone");
            release();
        }
        Connection connection = null;
        try {
            connection = source.open();
            connection.setAutoCommit(true);
            try (PreparedStatement take = connection.prepareStatement("SELECT pg_try_advisory_lock(?)")) {
                take.setLong(1, key);
                try (ResultSet result = take.executeQuery()) {
                    if (result.next() && result.getBoolean(1)) {
                        held = connection;
                        log.info("took the rebalancer lock: this instance is now the active rebalancer");
                        return connection;
                    }
                }
            }
            connection.close();
            return null;
        } catch (SQLException e) {
            log.debug("could not try the rebalancer lock: {}", e.toString());
            closeQuietly(connection);
            return null;
        }
    }

    public synchronized boolean isHeld() {
        return held != null;
    }

    /** Gives the lock up by ending its session; another instance may take it at its next cycle. */
    public synchronized void release() {
        Connection connection = held;
        held = null;
        closeQuietly(connection);
    }

    @Override
    public void close() {
        release();
    }

    private static void closeQuietly(Connection connection) {
        if (connection == null) {
            return;
        }
        try {
            connection.close();
        } catch (SQLException e) {
            log.debug("closing a rules-store connection failed: {}", e.toString());
        }
    }
}
