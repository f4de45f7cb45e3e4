package dev.tollgate.testsupport.postgres;

import org.testcontainers.postgresql.PostgreSQLContainer;

/** PostgreSQL 16 in a Testcontainers container, for machines with a Docker engine. */
final class ContainerServer implements PostgresServer {

    static final String IMAGE = "postgres:16-alpine";

    private final PostgreSQLContainer container;

    ContainerServer() {
        container = new PostgreSQLContainer(IMAGE).withCommand("postgres", "-c", "fsync=off", "-c", "max_connections=300");
        container.start();
    }

    @Override
    public String host() {
        return container.getHost();
    }

    @Override
    public int port() {
        return container.getMappedPort(PostgreSQLContainer.POSTGRESQL_PORT);
    }

    @Override
    public String username() {
        return container.getUsername();
    }

    @Override
    public String password() {
        return container.getPassword();
    }

    @Override
    public String adminDatabase() {
        return container.getDatabaseName();
    }

    @Override
    public void close() {
        container.stop();
    }

    @Override
    public String toString() {
        return "PostgreSQL container " + IMAGE + " on " + host() + ":" + port();
    }
}
