package dev.tollgate.testsupport.postgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/** What the two embedded servers share: loopback only, a socket in their own directory, no durability. */
final class EmbeddedSettings {

    static final String HOST = "127.0.0.1";
    static final String SUPERUSER = "postgres";
    static final Duration STARTUP_WAIT = Duration.ofSeconds(60);

    private EmbeddedSettings() {
    }

    static Map<String, String> serverConfig(Path directory) {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("listen_addresses", HOST);
        // Not /tmp: a socket there could meet a local PostgreSQL's lock file.
        config.put("unix_socket_directories", directory.toAbsolutePath().toString());
        // Test data is thrown away; durability only costs time.
        config.put("fsync", "off");
        config.put("synchronous_commit", "off");
        config.put("full_page_writes", "off");
        config.put("timezone", "UTC");
        config.put("max_connections", "300");
        return config;
    }

    /** A port free on loopback now; PostgreSQL binds it a moment later, a race we accept for tests. */
    static int freePort() {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(HOST, 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on " + HOST, e);
        }
    }

    static Path newDirectory() {
        Leftovers.reapOnce();
        try {
            Path directory = Files.createTempDirectory(Leftovers.PREFIX);
            Leftovers.markOwner(directory);
            return directory;
        } catch (IOException e) {
            throw new UncheckedIOException("could not create a temp dir for PostgreSQL", e);
        }
    }

    static void deleteRecursively(Path path) {
        if (!Files.exists(path)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(path)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // a leftover temp dir is not worth failing a test run for
        }
    }
}
