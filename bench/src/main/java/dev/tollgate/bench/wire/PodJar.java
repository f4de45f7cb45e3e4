package dev.tollgate.bench.wire;

import dev.tollgate.bench.BenchOptions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** check-service's executable jar for the scenarios that run it: the one named, else the newest its build left. */
public final class PodJar {

    private PodJar() {
    }

    /** The jar asked for, else the one check-service's build left under its target folder (from the repository root or bench/). */
    public static Path of(BenchOptions.Wire wire) {
        if (wire.podJar() != null) {
            if (!Files.isRegularFile(wire.podJar())) {
                throw new IllegalStateException("--wire-pod-jar: no such file " + wire.podJar().toAbsolutePath());
            }
            return wire.podJar();
        }
        for (Path target : List.of(Path.of("check-service", "target"), Path.of("..", "check-service", "target"))) {
            if (!Files.isDirectory(target)) {
                continue;
            }
            try (Stream<Path> files = Files.list(target)) {
                List<Path> jars = files.filter(f -> f.getFileName().toString().matches("tollgate-check-service-.*\\.jar")).toList();
                if (!jars.isEmpty()) {
                    return jars.stream().max(Comparator.comparing(PodJar::modified)).orElseThrow();
                }
            } catch (IOException e) {
                throw new UncheckedIOException("could not list " + target, e);
            }
        }
        throw new IllegalStateException("scenarios 8 and 10 run check-service's jar, and none was found under check-service/target: "
                + "build it (./mvnw -B -q -pl bench,check-service -am package -DskipTests) or name it with --wire-pod-jar");
    }

    public static long modified(Path file) {
        try {
            return Files.getLastModifiedTime(file).toMillis();
        } catch (IOException e) {
            return 0;
        }
    }
}
