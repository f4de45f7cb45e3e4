package dev.tollgate.testsupport.redis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shutdown hooks do not run when a JVM is SIGKILLed (a test fork killed on timeout, say), and its
 * redis-server processes would run on. Each cluster directory names its JVM ({@value #OWNER}) and each
 * node directory its process ({@value #PID}); the first cluster of a later JVM kills what a dead JVM left.
 */
final class Leftovers {

    static final String PREFIX = "tollgate-redis-";
    static final String OWNER = "owner.pid";
    static final String PID = "redis.pid";

    private static final Logger log = LoggerFactory.getLogger(Leftovers.class);
    private static final AtomicBoolean REAPED = new AtomicBoolean();

    private Leftovers() {
    }

    static void markOwner(Path clusterDirectory) throws IOException {
        Files.writeString(clusterDirectory.resolve(OWNER), Long.toString(ProcessHandle.current().pid()));
    }

    static void markProcess(Path nodeDirectory, Process process) throws IOException {
        Files.writeString(nodeDirectory.resolve(PID), Long.toString(process.pid()));
    }

    static void reapOnce() {
        if (REAPED.getAndSet(true)) {
            return;
        }
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        try (Stream<Path> entries = Files.list(tmp)) {
            entries.filter(path -> path.getFileName().toString().startsWith(PREFIX) && Files.isDirectory(path))
                    .filter(Leftovers::ownerIsGone)
                    .forEach(Leftovers::reap);
        } catch (IOException | RuntimeException e) {
            log.debug("could not look for leftover clusters in {}: {}", tmp, e.toString());
        }
    }

    private static boolean ownerIsGone(Path clusterDirectory) {
        return readPid(clusterDirectory.resolve(OWNER)).map(Leftovers::isGone).orElse(false);
    }

    private static void reap(Path clusterDirectory) {
        try (Stream<Path> nodes = Files.list(clusterDirectory)) {
            List<ProcessHandle> processes = nodes
                    .map(node -> readPid(node.resolve(PID)))
                    .flatMap(Optional::stream)
                    .map(ProcessHandle::of)
                    .flatMap(Optional::stream)
                    // The PID may since belong to something else. Not "redis-server": on Debian that is a
                    // symlink to redis-check-rdb, which is what /proc/<pid>/exe then names.
                    .filter(handle -> handle.info().command().map(command -> command.contains("redis")).orElse(false))
                    .toList();
            processes.forEach(ProcessHandle::destroyForcibly);
            log.info("removed a cluster left by a JVM that died: {} ({} redis-server processes)", clusterDirectory, processes.size());
        } catch (IOException e) {
            return;
        }
        try (Stream<Path> paths = Files.walk(clusterDirectory)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException | RuntimeException e) {
            log.debug("could not remove {}: {}", clusterDirectory, e.toString());
        }
    }

    /** A zombie (killed, not yet reaped by its parent) has no command any more: it counts as gone. */
    private static boolean isGone(long pid) {
        return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).flatMap(handle -> handle.info().command()).isEmpty();
    }

    private static Optional<Long> readPid(Path file) {
        try {
            return Optional.of(Long.parseLong(Files.readString(file, StandardCharsets.UTF_8).trim()));
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }
}
