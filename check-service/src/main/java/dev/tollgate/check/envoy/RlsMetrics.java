package dev.tollgate.check.envoy;

import dev.tollgate.check.metrics.CheckMeters;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.common.check.EntryResult;
import dev.tollgate.common.check.Verdict;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** The metric names of Envoy's gRPC check, in one place. */
final class RlsMetrics {

    static final String CALLS = CheckMeters.RLS_CALLS;
    static final String IN_FLIGHT = CheckMeters.RLS_IN_FLIGHT;
    static final String UNMATCHED = CheckMeters.RLS_DESCRIPTORS_UNMATCHED;
    static final String DETAILED = CheckMeters.RLS_DESCRIPTOR_HITS;
    static final String OVERRIDES_IGNORED = CheckMeters.RLS_LIMIT_OVERRIDES_IGNORED;
    /**
     * Series of {@code detailed_metric} descriptors a pod keeps: their names hold the callers' values, so
     * without a bound one client sending random values would grow the registry without end. Past it, hits
     * are counted under {@link #OTHER}.
     */
    static final int MAX_DETAILED_SERIES = 1000;
    static final String OTHER = "_other";
    /** A series name longer than this is cut: Prometheus keeps label values whole, per series. */
    static final int MAX_DETAIL_CHARS = 200;

    enum Outcome {
        OK, OVER_LIMIT, FAILED_CLOSED, INVALID, UNAVAILABLE, CANCELLED, INTERNAL;

        final String tag = name().toLowerCase();
    }

    private final Counter[] calls = new Counter[Outcome.values().length];
    private final Counter unmatched;
    private final Counter overridesIgnored;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final MeterRegistry registry;
    private final Map<String, Counter> detailed = new ConcurrentHashMap<>();

    RlsMetrics(MeterRegistry registry) {
        this.registry = registry;
        for (Outcome outcome : Outcome.values()) {
            calls[outcome.ordinal()] = Counter.builder(CALLS).tag("outcome", outcome.tag)
                    .description("ShouldRateLimit calls by how they ended; failed_closed: denied because a fail-closed rule's shard could not answer;"
                            + " unavailable: no rules yet; cancelled: the caller's deadline passed or it went away")
                    .register(registry);
        }
        this.unmatched = Counter.builder(UNMATCHED)
                .description("Descriptors no mapping resolves to a rule: answered OK, unlimited")
                .register(registry);
        this.overridesIgnored = Counter.builder(OVERRIDES_IGNORED)
                .description("Descriptors that carried Envoy's per-request limit override: the rule's own limit applied instead")
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

    void overridesIgnored(int descriptors) {
        if (descriptors > 0) {
            overridesIgnored.increment(descriptors);
        }
    }

    void unmatched(int descriptors) {
        if (descriptors > 0) {
            unmatched.increment(descriptors);
        }
    }

    /** Hits of the descriptors whose node asks for them per value, by descriptor and verdict; bounded in series. */
    void detailed(DescriptorCheck check, CheckResponse response) {
        for (int entry = 0; entry < check.details().size(); entry++) {
            Optional<String> detail = check.details().get(entry);
            if (detail.isPresent()) {
                EntryResult result = response.entries().get(entry);
                String verdict = result.effectiveVerdict() == Verdict.DENY ? "over_limit" : "ok";
                detailedCounter(detail.get(), verdict).increment();
            }
        }
    }

    private Counter detailedCounter(String descriptor, String verdict) {
        String name = descriptor.length() > MAX_DETAIL_CHARS ? descriptor.substring(0, MAX_DETAIL_CHARS) : descriptor;
        String id = name + '\u0000' + verdict;
        Counter counter = detailed.get(id);
        if (counter != null) {
            return counter;
        }
        if (detailed.size() >= MAX_DETAILED_SERIES) {
            name = OTHER;
            id = OTHER + '\u0000' + verdict;
        }
        String series = name;
        return detailed.computeIfAbsent(id, absent -> Counter.builder(DETAILED).tag("descriptor", series).tag("code", verdict)
                .description("Hits of descriptors whose mapping sets detailed_metric, per descriptor value (at most "
                        + MAX_DETAILED_SERIES + " series a pod; the rest under descriptor=" + OTHER + ")")
                .register(registry));
    }
}
