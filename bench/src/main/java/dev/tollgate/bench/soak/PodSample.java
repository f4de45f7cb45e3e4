package dev.tollgate.bench.soak;

import dev.tollgate.bench.wire.ChartPod;
import dev.tollgate.bench.wire.PrometheusText;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.TreeMap;

/**
 * One reading of one pod: from its own {@code /actuator/prometheus} (on its management port, as the chart's pod
 * monitor scrapes it) its heap, the live data after its last major collection, live threads, open file descriptors
 * and store calls by outcome (counters since the pod's start); from {@code /proc} its established connections by
 * peer; from the load generator the checks it answered so far. NaN where a figure could not be read.
 *
 * @param scraped      whether its Prometheus endpoint answered (else every figure from it is NaN, its store calls empty)
 * @param seconds      from the soak's start
 * @param life         which start of the pod this is (1 = its first)
 * @param forcedGc     whether a full GC was forced just before (then {@code liveAfterGc} is the live set now)
 * @param liveAfterGc  {@code jvm_gc_live_data_size_bytes}: the old generation after the last major (or forced) GC
 * @param storeCalls   {@code tollgate_store_calls_seconds_count} by outcome, since the pod started
 * @param answered     checks this pod answered so far (the load generator's count, over all its lives)
 * @param loadAverage  the machine's 1-minute load average then
 */
record PodSample(double seconds, boolean scraped, int life, long pid, boolean forcedGc, double heapUsed, double liveAfterGc, double threads,
                 double fds, Sockets.Count connections, Map<String, Double> storeCalls, long answered, double loadAverage) {

    static final String STORE_CALLS = "tollgate_store_calls_seconds_count";
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    static PodSample take(double seconds, ChartPod pod, boolean forcedGc, Set<Integer> redisPorts, long answered) {
        long pid = pod.pid();
        PrometheusText metrics = scrape(pod.managementPort());
        Sockets.Count connections = pid > 0
                ? Sockets.of(pid, Set.of(pod.httpPort(), pod.grpcPort(), pod.managementPort()), redisPorts) : null;
        double heap = Double.NaN;
        double live = Double.NaN;
        double threads = Double.NaN;
        double fds = Double.NaN;
        Map<String, Double> calls = new TreeMap<>();
        if (metrics != null) {
            heap = orNaN(metrics.sum("jvm_memory_used_bytes", labels -> "heap".equals(labels.get("area"))));
            live = orNaN(metrics.sum("jvm_gc_live_data_size_bytes"));
            threads = orNaN(metrics.sum("jvm_threads_live_threads"));
            fds = orNaN(metrics.sum("process_files_open_files"));
            calls.putAll(metrics.sumBy(STORE_CALLS, "outcome"));
        }
        return new PodSample(seconds, metrics != null, pod.lives(), pid, forcedGc, heap, live, threads, fds, connections, calls, answered,
                java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    double connectionsTotal() {
        return connections == null ? Double.NaN : connections.total();
    }

    double connectionsToRedis() {
        return connections == null ? Double.NaN : connections.redis();
    }

    double storeCallsTotal() {
        return storeCalls.values().stream().mapToDouble(Double::doubleValue).sum();
    }

    private static PrometheusText scrape(int port) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/prometheus"))
                .timeout(Duration.ofSeconds(5)).build();
        try {
            HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? PrometheusText.parse(response.body()) : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private static double orNaN(OptionalDouble value) {
        return value.isPresent() ? value.getAsDouble() : Double.NaN;
    }
}
