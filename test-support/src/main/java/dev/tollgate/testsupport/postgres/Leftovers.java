package dev.tollgate.testsupport.postgres;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * pg_ctl detaches the postmaster, so an embedded server outlives a JVM that dies without running its
 * shutdown hooks (a SIGKILLed test fork). Each server directory names its JVM ({@value #OWNER}); the first
 * embedded server of a later JVM stops the postmaster (from {@code postmaster.pid}) that a dead JVM left.
 */
final class Leftovers {

    static final String PREFIX = "tollgate-pg-";
    static final String OWNER = "owner.pid";

    private static final Logger log = LoggerFactory.getLogger(Leftovers.class);
    private static final AtomicBoolean REAPED = new AtomicBoolean();

    private Leftovers() {
    }

    static void markOwner(Path serverDirectory) throws IOException {
        Files.writeString(serverDirectory.resolve(OWNER), Long.toString(ProcessHandle.current().pid()));
    }

    static void reapOnce() {
        if (REAPED.getAndSet(true)) {
            return;
        }
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        try (Stream<Path> entries = Files.list(tmp)) {
            List<Path> abandoned = entries
                    .filter(path -> path.getFileName().toString().startsWith(PREFIX) && Files.isDirectory(path))
                    .filter(path -> readPid(path.resolve(OWNER)).map(Leftovers::isGone).orElse(false))
                    .toList();
            abandoned.forEach(Leftovers::reap);
        } catch (IOException | RuntimeException e) {
            log.debug("could not look for leftover PostgreSQL servers in {}: {}", tmp, e.toString());
        }
    }

    private static void reap(Path serverDirectory) {
        // The first line of postmaster.pid is the postmaster's PID.
        readPid(serverDirectory.resolve("data").resolve("postmaster.pid"))
                .flatMap(ProcessHandle::of)
                .filter(handle -> handle.info().command().map(command -> command.contains("postgres")).orElse(false))
                .ifPresent(postmaster -> {
                    postmaster.destroy();
                    try {
                        postmaster.onExit().get(10, TimeUnit.SECONDS);
                    } catch (Exception e) {
                        postmaster.destroyForcibly();
                    }
                });
        EmbeddedSettings.deleteRecursively(serverDirectory);
        log.info("removed a PostgreSQL left by a JVM that died: {}", serverDirectory);
    }

    /** A zombie (killed, not yet reaped by its parent) has no command any more: it counts as gone. */
    private static boolean isGone(long pid) {
        return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).flatMap(handle -> handle.info().command()).isEmpty();
    }

    private static Optional<Long> readPid(Path file) {
        try (Stream<String> lines = Files.lines(file, StandardCharsets.UTF_8)) {
            return lines.findFirst().map(String::trim).map(Long::parseLong);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
