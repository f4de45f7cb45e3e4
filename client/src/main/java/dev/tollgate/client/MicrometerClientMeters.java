package dev.tollgate.client;

import dev.tollgate.client.affinity.PodPicker;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/** {@link ClientMetrics}'s meters on a Micrometer registry. Meters are looked up once per tag pair, not per check. */
final class MicrometerClientMeters implements ClientMeters {

    private final MeterRegistry registry;
    private final Map<String, Counter> checks = new ConcurrentHashMap<>();
    private final Map<String, Timer> durations = new ConcurrentHashMap<>();
    private final Gauge known;
    private final Gauge down;

    MicrometerClientMeters(MeterRegistry registry, PodPicker picker) {
        this.registry = registry;
        // the picker, not the client: a gauge holds its object weakly, and the picker lives exactly as long as the client
        this.known = Gauge.builder(ClientMetrics.PODS_KNOWN, picker, PodPicker::known)
                .description("check-service pods the client's pod source lists now")
                .register(registry);
        this.down = Gauge.builder(ClientMetrics.PODS_DOWN, picker, PodPicker::down)
                .description("known pods marked down after a failure, skipped until their probe")
                .register(registry);
    }

    @Override
    public void checked(String outcome, String reason, long nanos) {
        checks.computeIfAbsent(outcome + '/' + reason, key -> Counter.builder(ClientMetrics.CHECKS)
                .description("checks by outcome (Tollgate's verdict, or fallback) and the reason Tollgate gave none")
                .tag(ClientMetrics.OUTCOME, outcome)
                .tag(ClientMetrics.REASON, reason)
                .register(registry)).increment();
        durations.computeIfAbsent(outcome, key -> Timer.builder(ClientMetrics.CHECK_DURATION)
                .description("checks from call to answer, every pod tried included")
                .tag(ClientMetrics.OUTCOME, outcome)
                .register(registry)).record(nanos, TimeUnit.NANOSECONDS);
    }

    /** A closed client's pods are no longer anyone's: its gauges go with it. */
    @Override
    public void close() {
        registry.remove(known);
        registry.remove(down);
    }
}
