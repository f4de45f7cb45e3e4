package dev.tollgate.testsupport.postgres;

import java.nio.file.Path;

/**
 * A PostgreSQL this JVM runs from zonky's binaries, in a directory of its own (data, logs) on a port of
 * its own: it can be stopped and started again, keeping both, and leaves nothing behind when closed.
 * Subclasses only say how to start and stop it.
 */
abstract class EmbeddedServer implements PostgresServer {

    protected final Path directory;
    protected final int port;

    EmbeddedServer(Path directory, int port) {
        this.directory = directory;
        this.port = port;
    }

    @Override
    public abstract void start();

    @Override
    public abstract void stop();

    @Override
    public String host() {
        return EmbeddedSettings.HOST;
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public String username() {
        return EmbeddedSettings.SUPERUSER;
    }

    @Override
    public String password() {
        return "";
    }

    @Override
    public String adminDatabase() {
        return "postgres";
    }

    @Override
    public boolean restartable() {
        return true;
    }

    /** Stops the server and removes its directory, whether or not it stopped. */
    @Override
    public void close() {
        try {
            stop();
        } finally {
            EmbeddedSettings.deleteRecursively(directory);
        }
    }
}
