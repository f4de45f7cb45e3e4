package dev.tollgate.testsupport.postgres;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * PostgreSQL from zonky's embedded binaries, run by zonky itself. As root, zonky wraps initdb, pg_ctl and
 * postgres in {@code unshare -U} (a user namespace in which root is unmapped), which is what lets it run
 * here at all; where user namespaces are blocked, {@link UnprivilegedServer} takes over.
 */
final class ZonkyServer extends EmbeddedServer {

    private EmbeddedPostgres postgres;

    ZonkyServer(Path directory, int port) {
        super(directory, port);
        start();
    }

    /** The first start runs initdb; later ones reuse the data directory, and so keep the data and port. */
    @Override
    public synchronized void start() {
        if (postgres != null) {
            return;
        }
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                .setPort(port)
                .setDataDirectory(directory.resolve("data"))
                .setCleanDataDirectory(false)
                // Postgres owns the lifecycle (and removes the directory); a hook per start would pile up.
                .setRegisterShutdownHook(false)
                .setPGStartupWait(EmbeddedSettings.STARTUP_WAIT)
                .setLocaleConfig("locale", "C")
                .setOutputRedirector(ProcessBuilder.Redirect.appendTo(directory.resolve("postgres.log").toFile()))
                .setErrorRedirector(ProcessBuilder.Redirect.appendTo(directory.resolve("postgres.log").toFile()));
        EmbeddedSettings.serverConfig(directory).forEach(builder::setServerConfig);
        try {
            postgres = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("embedded PostgreSQL did not start; see " + directory.resolve("postgres.log"), e);
        }
    }

    @Override
    public synchronized void stop() {
        if (postgres == null) {
            return;
        }
        try {
            postgres.close();
        } catch (IOException e) {
            throw new UncheckedIOException("embedded PostgreSQL did not stop", e);
        } finally {
            postgres = null;
        }
    }

    @Override
    public String toString() {
        return "embedded PostgreSQL (zonky) on " + host() + ":" + port + " in " + directory;
    }
}
