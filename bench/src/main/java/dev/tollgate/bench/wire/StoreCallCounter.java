package dev.tollgate.bench.wire;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * check-service's own count of its calls to the counter store, since it started: the sum over scripts and outcomes of
 * {@code tollgate_store_calls_seconds_count} (docs/metric-series.txt; the limiter's {@code LimiterMetrics.STORE_CALLS}),
 * from its Prometheus scrape. The scrape asks for that one series only ({@code includedNames}), so that reading it
 * around a step costs the pod a fraction of a millisecond, not a render of every series.
 */
public final class StoreCallCounter {

    public static final String SERIES = "tollgate_store_calls_seconds_count";
    /** The timer's family name, which the Prometheus client's name filter matches, and the sample's, in case a version matches that. */
    private static final String INCLUDED = "tollgate_store_calls_seconds," + SERIES;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    private final HttpRequest request;

    /** @param port the pod's management port (its check port when it has no management port of its own) */
    public StoreCallCounter(int port) {
        this.request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/prometheus?includedNames=" + INCLUDED))
                .timeout(Duration.ofSeconds(5)).build();
    }

    /**
     * The store calls the pod has made since it started; NaN while the series is absent (it appears at the first call, and a
     * filter that matched nothing must not read as no calls).
     */
    public double read() {
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("the pod's /actuator/prometheus answered " + response.statusCode());
            }
            return PrometheusText.parse(response.body()).sum(SERIES).orElse(Double.NaN);
        } catch (IOException e) {
            throw new UncheckedIOException("could not read the pod's store calls from /actuator/prometheus", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the pod's store calls", e);
        }
    }
}
