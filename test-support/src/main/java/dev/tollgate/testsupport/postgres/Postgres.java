package dev.tollgate.testsupport.postgres;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real PostgreSQL for integration tests, with a database of its own ({@link #jdbcUrl()}) and fresh empty
 * ones on demand ({@link #newDatabase(String)}), so that each test context runs Flyway on a clean schema.
 *
 * <p>{@link #shared()} is one per JVM, taken from the first of: the server named by
 * {@value #URL_VARIABLE} (+ {@code _USER}, {@code _PASSWORD}), where only databases created here are
 * touched and dropped at exit; a {@code postgres:16-alpine} container when a Docker engine answers; an
 * embedded server from zonky's binaries. {@link #startPrivate()} is always embedded and can be stopped and
 * started again on the same port with the same data, for tests of an outage.
 */
public final class Postgres implements AutoCloseable {

    static final String URL_VARIABLE = "TOLLGATE_TEST_PG_URL";
    /** {@code auto} (default), {@code zonky} or {@code unprivileged}: which embedded server to run. */
    static final String EMBEDDED_PROPERTY = "tollgate.postgres.embedded";

    private static final Logger log = LoggerFactory.getLogger(Postgres.class);
    private static final Pattern PREFIX = Pattern.compile("[a-z][a-z0-9_]{0,39}");
    /** Tells this JVM's databases apart from other JVMs' on a server they share. */
    private static final String JVM_TOKEN = Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0x1000000));
    private static final AtomicInteger DATABASE_COUNTER = new AtomicInteger();

    private static Postgres sharedPostgres;
    private static RuntimeException sharedFailure;

    private final PostgresServer server;
    private final boolean shared;
    private final String database;
    private final PGSimpleDataSource dataSource;
    private final List<String> createdDatabases = new CopyOnWriteArrayList<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread shutdownHook;

    private Postgres(PostgresServer server, boolean shared) {
        this.server = server;
        this.shared = shared;
        this.shutdownHook = new Thread(this::destroy, "tollgate-postgres-stop");
        try {
            // Inside the try: once the JVM is shutting down (a Ctrl-C while the server started) this throws, and the
            // server, already running, must be stopped here since no hook will.
            Runtime.getRuntime().addShutdownHook(shutdownHook);
            this.database = server.ownsOnlyItsDatabases() ? "tollgate_" + JVM_TOKEN : "tollgate";
            createDatabase(database);
            this.dataSource = dataSource(server.jdbcUrl(database));
        } catch (RuntimeException e) {
            destroy();
            removeShutdownHook();
            throw e;
        }
        log.info("{} ready, database {}", server, database);
    }

    /** The JVM's one PostgreSQL, started on first use and stopped (or cleaned up) when the JVM exits. */
    public static synchronized Postgres shared() {
        if (sharedFailure != null) {
            throw new IllegalStateException("the shared PostgreSQL failed to start earlier in this JVM", sharedFailure);
        }
        if (sharedPostgres == null) {
            try {
                sharedPostgres = new Postgres(startSharedServer(), true);
            } catch (RuntimeException e) {
                sharedFailure = e;
                throw e;
            }
        }
        return sharedPostgres;
    }

    /** An embedded PostgreSQL of the caller's own, which it may stop, start and must close. */
    public static Postgres startPrivate() {
        return new Postgres(startEmbedded(), false);
    }

    /** A private instance on a server started elsewhere; for tests of this package. */
    static Postgres on(PostgresServer server) {
        return new Postgres(server, false);
    }

    /** The JDBC URL of this instance's own database. */
    public String jdbcUrl() {
        return server.jdbcUrl(database);
    }

    public String username() {
        return server.username();
    }

    public String password() {
        return server.password();
    }

    public String host() {
        return server.host();
    }

    public int port() {
        return server.port();
    }

    /** Unpooled connections to {@link #jdbcUrl()}. */
    public DataSource dataSource() {
        return dataSource;
    }

    /**
     * Creates an empty database named {@code <prefix>_<jvm>_<n>} and returns its JDBC URL (same user and
     * password). The prefix is lower-case letters, digits and underscores.
     */
    public String newDatabase(String prefix) {
        String normalized = Objects.requireNonNull(prefix, "prefix").toLowerCase(Locale.ROOT);
        if (!PREFIX.matcher(normalized).matches()) {
            throw new IllegalArgumentException("database prefix must match " + PREFIX + ", was '" + prefix + "'");
        }
        String name = normalized + "_" + JVM_TOKEN + "_" + DATABASE_COUNTER.incrementAndGet();
        createDatabase(name);
        return server.jdbcUrl(name);
    }

    /** Stops the server (a fast shutdown: sessions are cut); data and port are kept for {@link #start()}. */
    public void stop() {
        requireRestartable("stop");
        server.stop();
    }

    /** Starts a stopped server again on the same port with the same data; no-op when it is running. */
    public void start() {
        requireRestartable("start");
        server.start();
    }

    public void restart() {
        stop();
        start();
    }

    /** Stops the server and removes its files. Refused on the shared instance. */
    @Override
    public void close() {
        if (shared) {
            throw new UnsupportedOperationException("the shared PostgreSQL lives as long as the JVM and cannot be closed; "
                    + "use Postgres.startPrivate() for one of your own");
        }
        destroy();
        removeShutdownHook();
    }

    @Override
    public String toString() {
        return (shared ? "shared " : "") + server + ", database " + database;
    }

    private static PostgresServer startSharedServer() {
        String url = System.getenv(URL_VARIABLE);
        if (url != null && !url.isBlank()) {
            return new ExternalServer(url.trim(), System.getenv(URL_VARIABLE.replace("_URL", "_USER")),
                    System.getenv(URL_VARIABLE.replace("_URL", "_PASSWORD")));
        }
        if (DockerEngine.reachable()) {
            return new ContainerServer();
        }
        return startEmbedded();
    }

    static PostgresServer startEmbedded() {
        String flavour = System.getProperty(EMBEDDED_PROPERTY, "auto");
        switch (flavour) {
            case "zonky":
                return startInNewDirectory(false);
            case "unprivileged":
                return startInNewDirectory(true);
            case "auto":
                if (UnprivilegedServer.needed()) {
                    return startInNewDirectory(true);
                }
                try {
                    return startInNewDirectory(false);
                } catch (RuntimeException e) {
                    if (!UnprivilegedServer.isRoot()) {
                        throw e;
                    }
                    // As root zonky depends on unshare -U working all the way through, not just for "id".
                    log.warn("zonky's embedded PostgreSQL failed as root ({}); running it as an unprivileged user instead", e.getMessage());
                    return startInNewDirectory(true);
                }
            default:
                throw new IllegalArgumentException(EMBEDDED_PROPERTY + " must be auto, zonky or unprivileged, was " + flavour);
        }
    }

    private static PostgresServer startInNewDirectory(boolean unprivileged) {
        var directory = EmbeddedSettings.newDirectory();
        int port = EmbeddedSettings.freePort();
        try {
            return unprivileged ? new UnprivilegedServer(directory, port) : new ZonkyServer(directory, port);
        } catch (RuntimeException e) {
            EmbeddedSettings.deleteRecursively(directory);
            throw e;
        }
    }

    private void createDatabase(String name) {
        // template0 never has sessions, whereas CREATE DATABASE from template1 fails while anyone is on it.
        execute("CREATE DATABASE \"" + name + "\" TEMPLATE template0");
        createdDatabases.add(name);
    }

    private void execute(String sql) {
        try (Connection connection = DriverManager.getConnection(server.jdbcUrl(server.adminDatabase()), server.username(), server.password());
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + " failed on " + server + ": " + e.getMessage(), e);
        }
    }

    private PGSimpleDataSource dataSource(String url) {
        PGSimpleDataSource source = new PGSimpleDataSource();
        source.setURL(url);
        source.setUser(server.username());
        source.setPassword(server.password());
        return source;
    }

    private void requireRestartable(String action) {
        if (shared || !server.restartable()) {
            throw new UnsupportedOperationException("cannot " + action + " " + this + "; use Postgres.startPrivate() for one you control");
        }
    }

    private void destroy() {
        if (closed.getAndSet(true)) {
            return;
        }
        if (server.ownsOnlyItsDatabases()) {
            createdDatabases.forEach(this::dropQuietly);
        }
        server.close();
    }

    private void dropQuietly(String name) {
        try {
            execute("DROP DATABASE IF EXISTS \"" + name + "\" WITH (FORCE)");
        } catch (RuntimeException e) {
            try {
                // before PostgreSQL 13 there is no FORCE
                execute("DROP DATABASE IF EXISTS \"" + name + "\"");
            } catch (RuntimeException again) {
                log.warn("could not drop test database {}: {}", name, again.getMessage());
            }
        }
    }

    private void removeShutdownHook() {
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shutdownInProgress) {
            // the hook is running or about to
        }
    }
}
