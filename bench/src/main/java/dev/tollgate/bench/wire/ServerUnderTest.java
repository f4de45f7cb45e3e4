package dev.tollgate.bench.wire;

import dev.tollgate.bench.load.Answer;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * A server of scenario 8 in its own JVM: check-service from its executable jar, or the {@link FloorServer}.
 * Starting one waits for its first answer, polling every few milliseconds, which is its cold start: from
 * the moment the process was started to the first answer that counts (for check-service, an enforced
 * verdict from its rules and the store, not a fallback or an unknown rule).
 */
public final class ServerUnderTest implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    private static final long POLL_NANOS = 5_000_000;

    private final String name;
    private final JavaProcess process;
    private final int httpPort;
    private final int grpcPort;
    private final JvmCounters counters;
    private final double coldStartSeconds;
    private final CannedAnswer firstAnswer;
    /** From the process start to readiness UP (check-service: after its warm-up), seconds; NaN for the floor. */
    private double readySeconds = Double.NaN;
    /** check-service's own count of store calls; null for the floor, which has no store. */
    private StoreCallCounter storeCalls;
    /** What the scrapes of {@link #storeCalls} cost the pod so far, measured around each and taken out of every reading. */
    private long scrapesCpuNanos;
    private long scrapesBytes;
    private int scrapes;

    private ServerUnderTest(String name, JavaProcess process, int httpPort, int grpcPort, JvmCounters counters,
                            double coldStartSeconds, CannedAnswer firstAnswer) {
        this.name = name;
        this.process = process;
        this.httpPort = httpPort;
        this.grpcPort = grpcPort;
        this.counters = counters;
        this.coldStartSeconds = coldStartSeconds;
        this.firstAnswer = firstAnswer;
    }

    /**
     * check-service's store and rules for a run: its Redis Cluster, its static rules file, the store's command timeout, and
     * the longest its warm-up before readiness may run (null: the pod's default).
     */
    public record PodSettings(Path jar, String redisNodes, Path rulesFile, Duration commandTimeout, Duration warmUpMaxDuration) {
    }

    /**
     * Starts check-service from its jar, with the HTTP check (HTTP/1.1 and h2c) and the Envoy port on loopback.
     *
     * @param probe a check of the run's rules: polled until it is answered with an enforced verdict
     */
    public static ServerUnderTest checkService(PodSettings pod, List<String> jvmFlags, Ports ports, Path workDirectory, byte[] probe) {
        int http = ports.next();
        int grpc = ports.next();
        int jmx = ports.next();
        List<String> arguments = new ArrayList<>(List.of(
                "--server.address=127.0.0.1",
                "--server.port=" + http,
                // h2c beside HTTP/1.1 on the check port (off in the chart, where gateways speak HTTP/1.1 or gRPC)
                "--server.http2.enabled=true",
                "--tollgate.grpc.address=127.0.0.1",
                "--tollgate.grpc.port=" + grpc,
                "--spring.data.redis.cluster.nodes=" + pod.redisNodes(),
                "--tollgate.redis.command-timeout=" + pod.commandTimeout().toMillis() + "ms",
                "--tollgate.rules.file=" + pod.rulesFile(),
                "--tollgate.rules.snapshot-file=" + workDirectory.resolve("rules-snapshot.json"),
                "--tollgate.region.name=bench",
                "--spring.main.banner-mode=off",
                "--logging.level.root=WARN"));
        if (pod.warmUpMaxDuration() != null) {
            arguments.add("--tollgate.warm-up.max-duration=" + pod.warmUpMaxDuration().toMillis() + "ms");
        }
        JavaProcess process = JavaProcess.start("check-service", jvmFlags, jmx, List.of("-jar", pod.jar().toString()), arguments,
                workDirectory);
        ServerUnderTest server = await("check-service", process, http, grpc, jmx, probe,
                response -> response.statusCode() == 200 && enforced(response.body()));
        // a load balancer sends a pod traffic once it is ready, after its warm-up: load before that would compete with it
        server.readySeconds = awaitReady(process, http);
        server.storeCalls = new StoreCallCounter(http);
        return server;
    }

    /** Polls the pod's readiness every few milliseconds until it is UP; answers when that was, seconds from the start. */
    private static double awaitReady(JavaProcess process, int http) {
        HttpClient poller = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofMillis(500)).build();
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http + "/actuator/health/readiness"))
                .timeout(Duration.ofSeconds(2)).build();
        long deadline = process.startedNanos() + START_TIMEOUT.toNanos();
        try {
            while (System.nanoTime() < deadline) {
                if (!process.isAlive()) {
                    throw new IllegalStateException("check-service exited before it was ready; its log " + process.log() + " ends:\n"
                            + process.logTail(30));
                }
                try {
                    if (poller.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                        return (System.nanoTime() - process.startedNanos()) / 1e9;
                    }
                } catch (IOException e) {
                    // not answering yet
                }
                Thread.sleep(POLL_NANOS / 1_000_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process.close();
        throw new IllegalStateException("check-service was not ready within " + START_TIMEOUT.toSeconds() + " s; its log " + process.log()
                + " ends:\n" + process.logTail(30));
    }

    /** Starts the floor, answering {@code canned} to every request. */
    public static ServerUnderTest floor(CannedAnswer canned, List<String> jvmFlags, Ports ports, Path workDirectory, byte[] probe) {
        int http = ports.next();
        int jmx = ports.next();
        Path answer = workDirectory.resolve("floor-answer.txt");
        canned.writeTo(answer);
        JavaProcess process = JavaProcess.start("floor", jvmFlags, jmx, JavaProcess.benchMain(FloorServer.class),
                List.of(Integer.toString(http), answer.toString()), workDirectory);
        return await("floor", process, http, -1, jmx, probe, response -> response.statusCode() == 200);
    }

    /** Whether an answer of check-service is a verdict it enforced: from its rules and its store, not a fallback. */
    static boolean enforced(byte[] body) {
        Answer answer = HttpWireClient.classify(200, body);
        return (answer == Answer.ALLOWED || answer == Answer.DENIED)
                && !new String(body, StandardCharsets.UTF_8).contains("\"unknown_rule\"");
    }

    private static ServerUnderTest await(String name, JavaProcess process, int http, int grpc, int jmx, byte[] probe,
                                         Predicate<HttpResponse<byte[]>> counts) {
        FirstAnswer first = firstAnswer(name, process, http, probe, counts);
        try {
            return new ServerUnderTest(name, process, http, grpc, JvmCounters.connect(jmx), first.seconds(), canned(first.response()));
        } catch (RuntimeException e) {
            process.close();
            throw e;
        }
    }

    /**
     * The answer that ended a cold start: how long after the process was started it came, and the process's CPU time
     * by then (NaN where the platform does not tell).
     */
    record FirstAnswer(double seconds, double cpuSeconds, HttpResponse<byte[]> response) {
    }

    /**
     * Polls {@code probe} every few milliseconds until an answer {@code counts}; the process is stopped if it exits, or
     * gives no such answer within the start timeout.
     */
    static FirstAnswer firstAnswer(String name, JavaProcess process, int http, byte[] probe, Predicate<HttpResponse<byte[]>> counts) {
        try {
            HttpClient poller = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofMillis(500)).build();
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http + HttpWireClient.PATH))
                    .header("Content-Type", "application/json")
                    .timeout(Duration.ofSeconds(2))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(probe))
                    .build();
            long deadline = process.startedNanos() + START_TIMEOUT.toNanos();
            String last = "no answer";
            while (true) {
                if (!process.isAlive()) {
                    throw new IllegalStateException(name + " exited before it answered; its log " + process.log() + " ends:\n"
                            + process.logTail(30));
                }
                long polled = System.nanoTime();
                try {
                    HttpResponse<byte[]> response = poller.send(request, HttpResponse.BodyHandlers.ofByteArray());
                    long answered = System.nanoTime();
                    if (counts.test(response)) {
                        return new FirstAnswer((answered - process.startedNanos()) / 1e9, process.cpuSeconds(), response);
                    }
                    last = response.statusCode() + " " + new String(response.body(), StandardCharsets.UTF_8);
                } catch (IOException e) {
                    last = e.toString();
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(name + " gave no answer that counts within " + START_TIMEOUT.toSeconds()
                            + " s; the last: " + last + "; its log " + process.log() + " ends:\n" + process.logTail(30));
                }
                long wait = POLL_NANOS - (System.nanoTime() - polled);
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.close();
            throw new IllegalStateException("interrupted while " + name + " was starting", e);
        } catch (RuntimeException e) {
            process.close();
            throw e;
        }
    }

    private static CannedAnswer canned(HttpResponse<byte[]> response) {
        List<Map.Entry<String, String>> headers = new ArrayList<>();
        response.headers().map().forEach((header, values) -> values.forEach(value -> headers.add(Map.entry(header, value))));
        return new CannedAnswer(headers, response.body());
    }

    public String name() {
        return name;
    }

    public int httpPort() {
        return httpPort;
    }

    /** The Envoy RLS port; -1 for a server without one (the floor). */
    public int grpcPort() {
        return grpcPort;
    }

    /**
     * Its CPU time and allocation, and for check-service its store calls. The scrape of the store calls is timed by a JMX
     * reading before and after it, and what every scrape so far cost is taken out of the CPU and allocation returned: a
     * step's figures are then from its first reading's end to its last reading's start, as without the scrape, which
     * would otherwise put one scrape's cost inside every step.
     */
    public JvmCounters.Reading read() {
        if (storeCalls == null) {
            return counters.read();
        }
        JvmCounters.Reading before = counters.read();
        double calls = storeCalls.read();
        JvmCounters.Reading after = counters.read();
        scrapesCpuNanos += after.cpuNanos() - before.cpuNanos();
        scrapesBytes += after.allocatedBytes() - before.allocatedBytes();
        scrapes++;
        return new JvmCounters.Reading(after.cpuNanos() - scrapesCpuNanos, after.allocatedBytes() - scrapesBytes, calls);
    }

    /** The pod's CPU per scrape of its store calls so far (with a JMX read), microseconds; NaN before the first. */
    public double scrapeCpuMicros() {
        return scrapes == 0 ? Double.NaN : scrapesCpuNanos / 1e3 / scrapes;
    }

    /** Its JIT compilers' total time so far, milliseconds. */
    public long compilationMillis() {
        return counters.compilationMillis();
    }

    /** From the process start to the first answer that counts, seconds. */
    public double coldStartSeconds() {
        return coldStartSeconds;
    }

    /** From the process start to readiness UP, after the pod's warm-up, seconds; NaN for a server without readiness. */
    public double readySeconds() {
        return readySeconds;
    }

    /** The answer that ended the cold start, as it came over the wire. */
    public CannedAnswer firstAnswer() {
        return firstAnswer;
    }

    @Override
    public void close() {
        counters.close();
        process.close();
    }
}
