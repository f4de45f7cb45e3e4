package dev.tollgate.check.forwardauth;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A real nginx for the recipe's test: the one on {@code PATH} or {@code /usr/sbin/nginx}, else Debian's package
 * installed as {@code .ci/run} installs chromium (only as root or with sudo that needs no password). When none can be
 * had the test is skipped, and says so on stderr; under {@code CI=true} it fails instead, since {@code .ci/run}
 * installs it.
 */
final class Nginx {

    private Nginx() {
    }

    static Path findOrInstall() {
        Optional<Path> found = find();
        if (found.isPresent()) {
            return found.get();
        }
        Optional<List<String>> asRoot = asRoot();
        if (asRoot.isPresent() && find("apt-get").isPresent()) {
            System.err.println("NginxForwardAuthIT: nginx is missing; installing Debian's package (apt-get install -y nginx)");
            if (!apt(asRoot.get(), "install", "-y", "-q", "nginx")) {
                apt(asRoot.get(), "update", "-q");
                apt(asRoot.get(), "install", "-y", "-q", "nginx");
            }
            found = find();
            if (found.isPresent()) {
                return found.get();
            }
        }
        String message = "nginx is not installed (not on PATH nor /usr/sbin/nginx) and cannot be installed here (needs root or"
                + " passwordless sudo, and apt-get): NginxForwardAuthIT, the test of examples/nginx/nginx.conf, is SKIPPED."
                + " Install it with: apt-get install -y nginx";
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            Assertions.fail("CI=true, and " + message);
        }
        System.err.println("\n*** " + message + " ***\n");
        Assumptions.abort(message);
        throw new AssertionError("unreachable");
    }

    private static Optional<Path> find() {
        Optional<Path> onPath = find("nginx");
        if (onPath.isPresent()) {
            return onPath;
        }
        Path debian = Path.of("/usr/sbin/nginx");
        return Files.isExecutable(debian) ? Optional.of(debian) : Optional.empty();
    }

    private static Optional<Path> find(String command) {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path candidate = Path.of(dir, command);
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /** The prefix that runs a command as root: none when this is root, {@code sudo -n} when it needs no password. */
    private static Optional<List<String>> asRoot() {
        if (run(List.of("id", "-u")).map(String::strip).filter("0"::equals).isPresent()) {
            return Optional.of(List.of());
        }
        if (find("sudo").isPresent() && run(List.of("sudo", "-n", "true")).isPresent()) {
            return Optional.of(List.of("sudo", "-n"));
        }
        return Optional.empty();
    }

    private static boolean apt(List<String> asRoot, String... args) {
        List<String> command = new ArrayList<>(asRoot);
        command.addAll(List.of("env", "DEBIAN_FRONTEND=noninteractive", "apt-get"));
        command.addAll(List.of(args));
        return run(command).isPresent();
    }

    /** The command's output when it exits 0 within 10 minutes. */
    private static Optional<String> run(List<String> command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes());
            boolean done = process.waitFor(10, TimeUnit.MINUTES);
            return done && process.exitValue() == 0 ? Optional.of(output) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
