package dev.tollgate.testsupport.postgres;

/**
 * A running PostgreSQL that {@link Postgres} talks to: started here (embedded, container) or given
 * (external). Stopping and starting again is only possible for embedded servers, which keep their port and
 * data directory across it.
 */
interface PostgresServer {

    String host();

    int port();

    String username();

    String password();

    /** A database that always exists, to connect to for CREATE DATABASE. */
    String adminDatabase();

    default String jdbcUrl(String database) {
        return "jdbc:postgresql://" + host() + ":" + port() + "/" + database;
    }

    /** A shared server: create uniquely named databases and drop them again, touch nothing else. */
    default boolean ownsOnlyItsDatabases() {
        return false;
    }

    /** Whether {@link #stop()} and {@link #start()} work. */
    default boolean restartable() {
        return false;
    }

    default void stop() {
        throw new UnsupportedOperationException(this + " cannot be stopped and started again");
    }

    default void start() {
        throw new UnsupportedOperationException(this + " cannot be stopped and started again");
    }

    /** Stops the server for good and removes what it left on disk; idempotent. */
    void close();
}
