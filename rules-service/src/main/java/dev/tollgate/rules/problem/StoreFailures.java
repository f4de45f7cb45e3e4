package dev.tollgate.rules.problem;

import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.dao.TransientDataAccessResourceException;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.TransactionSystemException;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.util.List;

/**
 * Tells an outage of PostgreSQL (503, try again later) from a bug (500). An outage shows up in many
 * shapes depending on where the connection broke: Hikari giving up on a connection, a socket closed
 * under a statement, the server shutting down (SQLSTATE 57P01) or refusing connections (class 08).
 */
final class StoreFailures {

    private StoreFailures() {
    }

    static boolean isUnavailable(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof CannotCreateTransactionException
                    || cause instanceof DataAccessResourceFailureException
                    || cause instanceof TransientDataAccessResourceException
                    || cause instanceof QueryTimeoutException
                    || cause instanceof SQLTransientConnectionException
                    || cause instanceof SQLNonTransientConnectionException) {
                return true;
            }
            if (cause instanceof SQLException sql && isOutageState(sql.getSQLState())) {
                return true;
            }
            // a rollback on a connection that just died fails too, and hides the failure that caused it
            if (cause instanceof TransactionSystemException rollback && rollback.getApplicationException() != null
                    && isUnavailable(rollback.getApplicationException())) {
                return true;
            }
        }
        return false;
    }

    /**
     * The transaction lost a race, not the store: a deadlock (40P01) with a writer that took its locks in
     * another order (psql, a migration script), a serialization failure (40001) or a lock it could not get
     * (55P03). PostgreSQL rolled it back whole, so the caller can simply try again.
     */
    static boolean isContention(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof ConcurrencyFailureException) {
                return true;
            }
            if (cause instanceof SQLException sql && sql.getSQLState() != null
                    && List.of("40P01", "40001", "55P03").contains(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    /**
     * PostgreSQL refused the value of a parameter: 22021 (a NUL, or bytes that are not UTF-8), 22P05
     * (untranslatable), 22008 (a timestamp out of its range) or 22003 (a number out of its column's
     * range). The value came from the caller, so this is a 400, not a failure of the store.
     */
    static boolean isUnstorableValue(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof SQLException sql && sql.getSQLState() != null
                    && List.of("22021", "22P05", "22008", "22003").contains(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    /** Class 08 (connection exception), 57P01-57P03 (shutdown, crash, cannot connect now), 53300 (too many connections). */
    static boolean isOutageState(String state) {
        if (state == null) {
            return false;
        }
        return state.startsWith("08") || state.equals("57P01") || state.equals("57P02") || state.equals("57P03")
                || state.equals("53300");
    }
}
