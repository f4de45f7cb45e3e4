package dev.tollgate.check.envoy;

import dev.tollgate.check.metrics.CheckMeters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.concurrent.atomic.AtomicInteger;

/** The metric names of Envoy's gRPC check, in one place. */
final class RlsMetrics {

    static final String CALLS = CheckMeters.RLS_CALLS;
    static final String IN_FLIGHT = CheckMeters.RLS_IN_FLIGHT;
    static final String UNMATCHED = CheckMeters.RLS_DESCRIPTORS_UNMATCHED;

    enum Outcome {
        OK, OVER_LIMIT, FAILED_CLOSED, INVALID, UNAVAILABLE, CANCELLED, INTERNAL;

        final String tag = name().toLowerCase();
    }

    private final Counter[] calls = new Counter[Outcome.values().length];
    private final Counter unmatched;
    private final AtomicInteger inFlight = new AtomicInteger();

    RlsMetrics(MeterRegistry registry) {
        for (Outcome outcome : Outcome.values()) {
            calls[outcome.ordinal()] = Counter.builder(CALLS).tag("outcome", outcome.tag)
                    .description("ShouldRateLimit calls by how they ended; failed_closed: denied because a fail-closed rule's shard could not answer;"
                            + " unavailable: no rules yet; cancelled: the caller's deadline passed or it went away")
                    .register(registry);
        }
        this.unmatched = Counter.builder(UNMATCHED)
                .description("Descriptors no mapping resolves to a rule: answered OK, unlimited")
                .register(registry);
        Gauge.builder(IN_FLIGHT, inFlight, AtomicInteger::get)
                .description("ShouldRateLimit calls started and not yet answered or cancelled")
                .register(registry);
    }

    void started() {
        inFlight.incrementAndGet();
    }

    void ended(Outcome outcome) {
        inFlight.decrementAndGet();
        calls[outcome.ordinal()].increment();
    }

    void unmatched(int descriptors) {
        if (descriptors > 0) {
            unmatched.increment(descriptors);
        }
    }
}
