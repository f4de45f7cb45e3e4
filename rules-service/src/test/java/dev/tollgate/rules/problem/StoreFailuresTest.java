package dev.tollgate.rules.problem;

import org.junit.jupiter.api.Test;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.TransactionSystemException;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

import static org.assertj.core.api.Assertions.assertThat;

class StoreFailuresTest {

    @Test
    void aPoolThatCannotConnectIsAnOutage() {
        assertThat(StoreFailures.isUnavailable(new CannotCreateTransactionException("no connection",
                new SQLTransientConnectionException("HikariPool-1 - Connection is not available")))).isTrue();
        assertThat(StoreFailures.isUnavailable(new CannotGetJdbcConnectionException("no connection"))).isTrue();
    }

    @Test
    void aServerShuttingDownOrAConnectionLostMidStatementIsAnOutage() {
        assertThat(StoreFailures.isUnavailable(new UncategorizedSQLException("insert", "INSERT",
                new SQLException("terminating connection due to administrator command", "57P01")))).isTrue();
        assertThat(StoreFailures.isUnavailable(new UncategorizedSQLException("insert", "INSERT",
                new SQLException("An I/O error occurred while sending to the backend.", "08006")))).isTrue();
    }

    @Test
    void aFailedRollbackAfterALostConnectionIsAnOutage() {
        TransactionSystemException rollback = new TransactionSystemException("JDBC rollback failed", new SQLException("Connection is closed"));
        rollback.initApplicationException(new DataAccessResourceFailureException("I/O error",
                new SQLException("An I/O error occurred while sending to the backend.", "08006")));

        assertThat(StoreFailures.isUnavailable(rollback)).isTrue();
        assertThat(StoreFailures.isUnavailable(new TransactionSystemException("commit failed"))).isFalse();
    }

    @Test
    void aConstraintViolationIsABugNotAnOutage() {
        assertThat(StoreFailures.isUnavailable(new DataIntegrityViolationException("check",
                new SQLException("new row violates check constraint", "23514")))).isFalse();
        assertThat(StoreFailures.isUnavailable(new IllegalStateException("bug"))).isFalse();
    }

    @Test
    void aValuePostgresqlCannotHoldIsTheCallersNotAnOutage() {
        DataIntegrityViolationException nul = new DataIntegrityViolationException("select",
                new SQLException("ERROR: invalid byte sequence for encoding \"UTF8\": 0x00", "22021"));

        assertThat(StoreFailures.isUnstorableValue(nul)).isTrue();
        assertThat(StoreFailures.isUnavailable(nul)).isFalse();
        assertThat(StoreFailures.isUnstorableValue(new DataIntegrityViolationException("insert",
                new SQLException("ERROR: timestamp out of range", "22008")))).isTrue();
        assertThat(StoreFailures.isUnstorableValue(new DataIntegrityViolationException("insert",
                new SQLException("duplicate key value violates unique constraint", "23505")))).isFalse();
    }

    @Test
    void aDeadlockOrSerializationFailureIsContentionNotAnOutage() {
        for (String state : new String[] {"40P01", "40001", "55P03"}) {
            UncategorizedSQLException lost = new UncategorizedSQLException("update", "UPDATE", new SQLException("lost a race", state));
            assertThat(StoreFailures.isContention(lost)).as(state).isTrue();
            assertThat(StoreFailures.isUnavailable(lost)).as(state).isFalse();
        }
        assertThat(StoreFailures.isContention(new CannotAcquireLockException("deadlock detected"))).isTrue();
        assertThat(StoreFailures.isContention(new DataIntegrityViolationException("check",
                new SQLException("new row violates check constraint", "23514")))).isFalse();
    }
}
