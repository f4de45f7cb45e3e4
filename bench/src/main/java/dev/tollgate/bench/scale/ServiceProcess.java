package dev.tollgate.bench.scale;

import dev.tollgate.bench.wire.JavaProcess;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One Tollgate service started from its Boot fat jar as a JVM of its own, so that its CPU time (from
 * {@code /proc/<pid>/stat}) and its heap (its own {@code /actuator/prometheus}) are its alone, not mixed
 * with the bench's. Its output goes to a log file beside the report, read for the lines the scenario needs.
 * Starting, stopping and stopping at the bench's exit are {@link JavaProcess}'s, as for scenario 8's servers.
 */
final class ServiceProcess implements AutoCloseable {

    /** USER_HZ, the unit of /proc's CPU times on every Linux the bench runs on. */
    private static final double TICKS_PER_SECOND = 100;
    private static final Pattern METRIC_LINE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[^}]*})? ([-+0-9.eE]+|NaN)$");

    private final JavaProcess process;
    private final URI base;
    private final String token;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private ServiceProcess(JavaProcess process, URI base, String token) {
        this.process = process;
        this.base = base;
        this.token = token;
    }

    /**
     * Starts {@code java <jvmOptions> -jar <jar> --k=v ...} and waits until its health endpoint answers UP.
     *
     * @param token a bearer token for its actuator, or null when it needs none
     */
    static ServiceProcess start(String name, Path jar, List<String> jvmOptions, Map<String, String> properties, int port,
                                String token, Path logDir, Duration startup) {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(name + "'s jar " + jar.toAbsolutePath() + " is not built: run "
                    + "./mvnw -B -q -pl rules-service,budget-rebalancer -am package -DskipTests");
        }
        List<String> arguments = new ArrayList<>();
        properties.forEach((key, value) -> arguments.add("--" + key + "=" + value));
        arguments.add("--server.address=127.0.0.1");
        arguments.add("--server.port=" + port);
        JavaProcess process = JavaProcess.start(name, jvmOptions, List.of("-jar", jar.toAbsolutePath().toString()), arguments, logDir);
        ServiceProcess service = new ServiceProcess(process, URI.create("http://127.0.0.1:" + port), token);
        try {
            service.awaitHealthy(startup);
        } catch (RuntimeException e) {
            service.close();
            throw e;
        }
        return service;
    }

    URI base() {
        return base;
    }

    long pid() {
        return process.pid();
    }

    /** CPU seconds (user + system) the process used so far; NaN off Linux. */
    double cpuSeconds() {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid()), "stat"));
            // the command name may hold spaces: fields count from after its closing parenthesis
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / TICKS_PER_SECOND;
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    /** Resident set size in bytes, from /proc; NaN off Linux. */
    double residentBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid()), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024.0;
                }
            }
        } catch (IOException | RuntimeException e) {
            // NaN below
        }
        return Double.NaN;
    }

    /** The sum of every sample of {@code metric} whose labels pass {@code labels}, from its Prometheus endpoint. */
    OptionalDouble metric(String metric, Predicate<String> labels) {
        String text = get("/actuator/prometheus");
        if (text == null) {
            return OptionalDouble.empty();
        }
        double sum = 0;
        boolean found = false;
        for (String line : text.split("\n")) {
            Matcher m = METRIC_LINE.matcher(line);
            if (m.matches() && m.group(1).equals(metric) && labels.test(m.group(2) == null ? "" : m.group(2))) {
                sum += Double.parseDouble(m.group(3));
                found = true;
            }
        }
        return found ? OptionalDouble.of(sum) : OptionalDouble.empty();
    }

    /** Heap in use now, every pool summed. */
    OptionalDouble heapUsed() {
        return metric("jvm_memory_used_bytes", labels -> labels.contains("area=\"heap\""));
    }

    /** Lines of its log that contain {@code text}. */
    List<String> logLines(String text) {
        try {
            return Files.readAllLines(process.log()).stream().filter(line -> line.contains(text)).toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    boolean isAlive() {
        return process.isAlive();
    }

    private String get(String path) {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        try {
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? response.body() : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private void awaitHealthy(Duration timeout) {
        long until = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < until) {
            if (!process.isAlive()) {
                throw new IllegalStateException(process.name() + " exited while starting; its log " + process.log() + " ends:\n"
                        + process.logTail(30));
            }
            String health = get("/actuator/health");
            if (health != null && health.contains("\"UP\"")) {
                return;
            }
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while " + process.name() + " started");
            }
        }
        throw new IllegalStateException(process.name() + " was not healthy within " + timeout.toSeconds() + " s; see " + process.log());
    }

    /** Stops it as a pod is stopped (SIGTERM), then for good if it does not exit within its grace period. */
    @Override
    public void close() {
        process.close();
    }

    @Override
    public String toString() {
        return process + ", " + base;
    }
}
