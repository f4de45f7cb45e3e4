package dev.tollgate.testsupport.postgres;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/**
 * A PostgreSQL someone else runs, named by a JDBC URL. Only databases that {@link Postgres} creates are
 * touched (and dropped at exit); the server itself is never stopped.
 */
final class ExternalServer implements PostgresServer {

    private static final String SCHEME = "jdbc:postgresql://";

    private final String hostAndPort;
    private final String adminDatabase;
    private final String parameters;
    private final String username;
    private final String password;

    ExternalServer(String jdbcUrl, String username, String password) {
        if (!jdbcUrl.startsWith(SCHEME)) {
            throw new IllegalArgumentException("expected a URL like jdbc:postgresql://host:5432/postgres, got " + jdbcUrl);
        }
        String rest = jdbcUrl.substring(SCHEME.length());
        int query = rest.indexOf('?');
        this.parameters = query < 0 ? "" : rest.substring(query);
        String location = query < 0 ? rest : rest.substring(0, query);
        int slash = location.indexOf('/');
        this.hostAndPort = slash < 0 ? location : location.substring(0, slash);
        String database = slash < 0 ? "" : location.substring(slash + 1);
        this.adminDatabase = database.isEmpty() ? "postgres" : database;
        this.username = username == null ? "" : username;
        this.password = password == null ? "" : password;
        try (Connection ignored = DriverManager.getConnection(jdbcUrl(adminDatabase), this.username, this.password)) {
            // reachable with these credentials
        } catch (SQLException e) {
            throw new IllegalStateException("cannot connect to the PostgreSQL named by " + Postgres.URL_VARIABLE + " (" + jdbcUrl
                    + ") as user '" + this.username + "': " + e.getMessage(), e);
        }
    }

    @Override
    public String host() {
        int colon = hostAndPort.lastIndexOf(':');
        return colon < 0 ? hostAndPort : hostAndPort.substring(0, colon);
    }

    @Override
    public int port() {
        int colon = hostAndPort.lastIndexOf(':');
        return colon < 0 ? 5432 : Integer.parseInt(hostAndPort.substring(colon + 1));
    }

    @Override
    public String username() {
        return username;
    }

    @Override
    public String password() {
        return password;
    }

    @Override
    public String adminDatabase() {
        return adminDatabase;
    }

    /** Keeps the URL's parameters (sslmode and the like) for every database. */
    @Override
    public String jdbcUrl(String database) {
        return SCHEME + hostAndPort + "/" + database + parameters;
    }

    @Override
    public boolean ownsOnlyItsDatabases() {
        return true;
    }

    @Override
    public void close() {
        // not ours to stop
    }

    @Override
    public String toString() {
        return "external PostgreSQL at " + hostAndPort;
    }
}
