package dev.tollgate.cli;

import dev.tollgate.common.ascode.DomainConfig;
import dev.tollgate.common.ascode.DomainFile;
import dev.tollgate.common.ascode.DomainFile.Format;
import dev.tollgate.common.ascode.DomainFile.Reading;
import dev.tollgate.common.validation.Violation;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The domain files a {@code -f} names: that file, or each {@code *.yaml}, {@code *.yml} and {@code *.json} directly in
 * that directory (not below it), in name order; each read and judged by common's {@link DomainFile}, the reader the
 * service itself uses, so that a file valid here is one the service takes (bar what only the store can tell: a rule
 * id another domain holds).
 */
final class DomainFiles {

    /** rules-service's limit for one file on {@code /v1/config:apply}: a larger file is refused here rather than sent. */
    static final long MAX_BYTES = 1024 * 1024;

    /** One file: its configuration when it is valid, else every problem it has. */
    record Local(Path path, byte[] body, Format format, DomainConfig config, List<Violation> problems) {

        Local {
            problems = List.copyOf(problems);
        }

        boolean valid() {
            return problems.isEmpty();
        }

        String domain() {
            return config.domain();
        }

        String mediaType() {
            return format == Format.JSON ? "application/json" : "application/yaml";
        }
    }

    private DomainFiles() {
    }

    /** The files at {@code target}, judged as of {@code now} (an override's expiry must be ahead of it). */
    static List<Local> read(Path target, Instant now) {
        List<Path> paths = paths(target);
        List<Local> files = new ArrayList<>();
        Map<String, Path> byDomain = new HashMap<>();
        for (Path path : paths) {
            Local file = readOne(path, now);
            if (file.valid()) {
                Path first = byDomain.putIfAbsent(file.domain(), path);
                if (first != null) {
                    // two files of one domain would each make it what they say, the second undoing the first
                    file = new Local(path, file.body(), file.format(), null, List.of(new Violation("domain",
                            "is " + file.domain() + ", the domain of " + first + " too: keep one file per domain")));
                }
            }
            files.add(file);
        }
        return files;
    }

    private static List<Path> paths(Path target) {
        if (Files.isRegularFile(target)) {
            return List.of(target);
        }
        if (!Files.isDirectory(target)) {
            throw Failure.usage(target + " is neither a file nor a directory");
        }
        List<Path> paths;
        try (Stream<Path> listed = Files.list(target)) {
            paths = listed.filter(Files::isRegularFile).filter(DomainFiles::isDomainFile).sorted().toList();
        } catch (IOException e) {
            throw Failure.usage("cannot list " + target + ": " + e.getMessage());
        }
        if (paths.isEmpty()) {
            throw Failure.usage(target + " holds no domain file (*.yaml, *.yml or *.json)");
        }
        return paths;
    }

    static boolean isDomainFile(Path path) {
        String name = path.getFileName().toString().toLowerCase(Locale.ROOT);
        return !name.startsWith(".") && (name.endsWith(".yaml") || name.endsWith(".yml") || name.endsWith(".json"));
    }

    private static Local readOne(Path path, Instant now) {
        Format format = Format.of(path.getFileName().toString());
        byte[] body;
        try {
            if (Files.size(path) > MAX_BYTES) {
                return new Local(path, null, format, null, List.of(new Violation("",
                        "is larger than 1 MiB, the most rules-service takes in one file: split the domain")));
            }
            body = Files.readAllBytes(path);
        } catch (IOException e) {
            throw Failure.usage("cannot read " + path + ": " + e.getMessage());
        }
        Reading reading = DomainFile.parse(body, format, now);
        return new Local(path, body, format, reading.config(), reading.problems());
    }
}
