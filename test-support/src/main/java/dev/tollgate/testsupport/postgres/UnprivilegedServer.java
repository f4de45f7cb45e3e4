package dev.tollgate.testsupport.postgres;

import io.zonky.test.db.postgres.util.LinuxUtils;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL from zonky's binaries, run as an unprivileged user ({@value #DEFAULT_USER} unless
 * {@value #USER_PROPERTY} names another) through {@code setpriv}, or {@code su} where setpriv is missing.
 *
 * <p>initdb and postgres refuse to run as root. Zonky gets around that with {@code unshare -U}, but
 * container runtimes commonly forbid user namespaces (Docker's default seccomp profile does), and CI runs
 * as root in such places; then the only way left is to really be another user. The server directory is
 * handed to that user; the binaries are unpacked world-readable.
 */
final class UnprivilegedServer extends EmbeddedServer {

    static final String USER_PROPERTY = "tollgate.postgres.user";
    static final String DEFAULT_USER = "nobody";

    private static final Logger log = LoggerFactory.getLogger(UnprivilegedServer.class);

    private final Path data;
    private final Path bin;
    private final String user;
    private final List<String> runAs;
    private boolean running;

    UnprivilegedServer(Path directory, int port) {
        super(directory, port);
        this.data = directory.resolve("data");
        this.bin = ZonkyBinaries.extracted().resolve("bin");
        this.user = System.getProperty(USER_PROPERTY, DEFAULT_USER);
        int uid = id(user, "-u");
        int gid = id(user, "-g");
        this.runAs = runAsPrefix(user, uid, gid);
        try {
            Files.setAttribute(directory, "unix:uid", uid);
            Files.setAttribute(directory, "unix:gid", gid);
        } catch (IOException e) {
            throw new UncheckedIOException("could not hand " + directory + " to user " + user, e);
        }
        run(List.of(bin.resolve("initdb").toString(), "-A", "trust", "-U", EmbeddedSettings.SUPERUSER,
                "-D", data.toString(), "-E", "UTF-8", "--locale=C", "--no-sync"));
        start();
    }

    /** Whether zonky cannot run PostgreSQL here by itself: root, and no user namespaces to escape into. */
    static boolean needed() {
        return isRoot() && !LinuxUtils.isUnshareAvailable();
    }

    static boolean isRoot() {
        return System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux")
                && new com.sun.security.auth.module.UnixSystem().getUid() == 0;
    }

    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        // pg_ctl hands -o to a shell, hence the quoting of values.
        String options = "-p " + port + " " + EmbeddedSettings.serverConfig(directory).entrySet().stream()
                .map(setting -> "-c " + setting.getKey() + "='" + setting.getValue() + "'")
                .collect(Collectors.joining(" "));
        run(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-l", directory.resolve("postgres.log").toString(),
                "-w", "-t", Long.toString(EmbeddedSettings.STARTUP_WAIT.toSeconds()), "-o", options, "start"));
        running = true;
    }

    @Override
    public synchronized void stop() {
        if (!running) {
            return;
        }
        run(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-m", "fast", "-w", "-t", "60", "stop"));
        running = false;
    }

    /** A server that will not stop (pg_ctl failed) is logged, and its directory removed all the same. */
    @Override
    public void close() {
        try {
            super.close();
        } catch (RuntimeException e) {
            log.warn("could not stop {}: {}", this, e.getMessage());
        }
    }

    @Override
    public String toString() {
        return "embedded PostgreSQL (zonky binaries, run as " + user + ") on " + host() + ":" + port + " in " + directory;
    }

    private void run(List<String> command) {
        List<String> full = new ArrayList<>(runAs);
        if (runAs.get(0).endsWith("su")) {
            full.add(command.stream().map(UnprivilegedServer::shellQuote).collect(Collectors.joining(" ")));
        } else {
            full.addAll(command);
        }
        // Opened by this (root) JVM, so it must not be the server log, which the server's user appends to.
        Path output = directory.resolve("commands.log");
        try {
            Process process = new ProcessBuilder(full)
                    .directory(directory.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile()))
                    .start();
            if (!process.waitFor(EmbeddedSettings.STARTUP_WAIT.toSeconds() + 30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not finish" + logs());
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", full) + " failed with exit code " + process.exitValue() + logs());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + full, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + command.get(0), e);
        }
    }

    private String logs() {
        return tail(directory.resolve("commands.log")) + tail(directory.resolve("postgres.log"));
    }

    private static String tail(Path file) {
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            return "\n--- " + file + " ---\n" + String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException e) {
            return "";
        }
    }

    private static List<String> runAsPrefix(String user, int uid, int gid) {
        Optional<Path> setpriv = onPath("setpriv");
        if (setpriv.isPresent()) {
            return List.of(setpriv.get().toString(), "--reuid=" + uid, "--regid=" + gid, "--clear-groups", "--");
        }
        Optional<Path> su = onPath("su");
        if (su.isPresent()) {
            // The user's login shell may be nologin; -s picks one that runs the command.
            return List.of(su.get().toString(), "-s", "/bin/sh", user, "-c");
        }
        throw new IllegalStateException("running PostgreSQL as root needs setpriv or su on PATH to become user " + user);
    }

    private static int id(String user, String flag) {
        try {
            Process process = new ProcessBuilder("id", flag, user).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (process.waitFor() != 0) {
                throw new IllegalStateException("no user '" + user + "' to run PostgreSQL as (" + output + "); set -D"
                        + USER_PROPERTY + " to an existing non-root user");
            }
            return Integer.parseInt(output);
        } catch (IOException e) {
            throw new UncheckedIOException("could not run id " + flag + " " + user, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static Optional<Path> onPath(String name) {
        String path = Optional.ofNullable(System.getenv("PATH")).orElse("/usr/sbin:/usr/bin:/sbin:/bin");
        for (String dir : path.split(Pattern.quote(File.pathSeparator))) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    private static String shellQuote(String argument) {
        return "'" + argument.replace("'", "'\\''") + "'";
    }
}
