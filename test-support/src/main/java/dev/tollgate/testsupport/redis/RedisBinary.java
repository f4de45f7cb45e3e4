package dev.tollgate.testsupport.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds a {@code redis-server} executable: the one named by {@value #PROPERTY} (a path, or
 * {@code embedded}), else the one on PATH, else the binary that the embedded-redis jar ships, so that a
 * machine with only a JDK and Maven Central can still run a real cluster.
 */
final class RedisBinary {

    static final String PROPERTY = "tollgate.redis.binary";
    static final String EMBEDDED = "embedded";

    private static final Logger log = LoggerFactory.getLogger(RedisBinary.class);
    private static Path extracted;

    private RedisBinary() {
    }

    static Path resolve() {
        String configured = System.getProperty(PROPERTY, "").trim();
        if (EMBEDDED.equals(configured)) {
            return embedded();
        }
        if (!configured.isEmpty()) {
            Path path = Path.of(configured);
            if (!Files.isExecutable(path)) {
                throw new IllegalStateException(PROPERTY + "=" + configured + " is not an executable file; "
                        + "set it to a redis-server path or to '" + EMBEDDED + "'");
            }
            return path;
        }
        return onPath().orElseGet(RedisBinary::embedded);
    }

    private static Optional<Path> onPath() {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(Pattern.quote(java.io.File.pathSeparator))) {
            if (dir.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(dir, "redis-server");
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /** Extracted once per JVM; the temp file goes when the JVM exits. */
    static synchronized Path embedded() {
        if (extracted != null && Files.isExecutable(extracted)) {
            return extracted;
        }
        String resource = embeddedResourceName();
        try (InputStream in = RedisBinary.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("resource " + resource + " not found: is com.github.codemonstur:embedded-redis on the classpath?");
            }
            Path file = Files.createTempFile("tollgate-redis-server-", "");
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            if (!file.toFile().setExecutable(true, true)) {
                throw new IllegalStateException("could not make " + file + " executable");
            }
            file.toFile().deleteOnExit();
            log.info("Using the redis-server shipped in embedded-redis ({}), extracted to {}", resource, file);
            extracted = file;
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("could not extract " + resource, e);
        }
    }

    // The file names at the root of the embedded-redis 1.4.x jar.
    private static String embeddedResourceName() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        boolean arm = arch.equals("aarch64") || arch.equals("arm64");
        boolean x64 = arch.equals("amd64") || arch.equals("x86_64");
        if (os.contains("linux") && x64) {
            return "redis-server-6.2.6-v5-linux-amd64";
        }
        if (os.contains("linux") && arm) {
            return "redis-server-6.2.7-linux-arm64";
        }
        if (os.contains("mac") && x64) {
            return "redis-server-6.2.6-v5-darwin-amd64";
        }
        if (os.contains("mac") && arm) {
            return "redis-server-6.2.6-v5-darwin-arm64";
        }
        throw new IllegalStateException("no embedded redis-server for " + os + "/" + arch + "; install redis-server on PATH or set " + PROPERTY);
    }

    /** The major version of a redis-server binary ({@code redis-server --version}), or 0 if it cannot tell. */
    static synchronized int majorVersion(Path binary) {
        return VERSIONS.computeIfAbsent(binary, RedisBinary::probeMajorVersion);
    }

    private static final java.util.Map<Path, Integer> VERSIONS = new java.util.HashMap<>();

    private static int probeMajorVersion(Path binary) {
        try {
            Process process = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            process.waitFor();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("v=(\\d+)\\.").matcher(out);
            return m.find() ? Integer.parseInt(m.group(1)) : 0;
        } catch (IOException e) {
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }
}
