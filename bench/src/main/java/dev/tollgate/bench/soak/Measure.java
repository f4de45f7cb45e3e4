package dev.tollgate.bench.soak;

import dev.tollgate.bench.soak.Drift.Tolerance;

import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * A series the soak samples per pod, how it is read from a pod's samples, and how far it may move between the first
 * and the last third of the soak and still count as flat. The tolerances, and why:
 * <ul>
 *   <li><b>heap after GC</b> (the live set after a full GC the bench forces): 10%, at least 8 MiB. Between two forced
 *   collections a steady pod's live set differs by what its per-key state holds at that moment (local buckets,
 *   leases, the deny cache, fallback buckets: bounded, expiring) and by Lettuce's and Netty's buffers in use; the report
 *   states what leak per check the tolerance still lets through over the soak.</li>
 *   <li><b>threads</b>: 5%, at least 3: the event loops and Lettuce's threads are fixed; elastic pools grow with a burst
 *   and let idle threads go after 60 s, a few at a time.</li>
 *   <li><b>file descriptors</b> and <b>connections</b>: 10%, at least 8 and 4: each connection is a descriptor, and the
 *   load generator's pools (8 HTTP/1.1 connections and 2 gRPC channels per pod) open and close with bursts and with
 *   the servers' idle and age limits.</li>
 *   <li><b>connections to Redis</b>: 2 at most, whatever the share: one connection per node and a few for topology
 *   reads; a client that kept a connection for every failover would add one per fault and cross it within the soak.</li>
 *   <li><b>store calls per check</b> (not a bound, a behaviour): 25%, at least 0.05: leases and the deny cache keep it
 *   well under one; a cache that stopped working would raise it.</li>
 * </ul>
 */
enum Measure {
    HEAP_AFTER_GC("heap after GC", true, new Tolerance(8 * 1024 * 1024, 0.10), sample -> sample.forcedGc() ? sample.liveAfterGc() : Double.NaN),
    THREADS("live threads", true, new Tolerance(3, 0.05), PodSample::threads),
    FILE_DESCRIPTORS("open file descriptors", true, new Tolerance(8, 0.10), PodSample::fds),
    CONNECTIONS("established connections", true, new Tolerance(4, 0.10), PodSample::connectionsTotal),
    REDIS_CONNECTIONS("connections to Redis", true, new Tolerance(2, 0), PodSample::connectionsToRedis),
    STORE_CALLS_PER_CHECK("store calls per check", false, new Tolerance(0.05, 0.25), null),
    /** How the load fell on the pod (it takes the other's keys while that one is down): shown, never judged. */
    CHECKS_PER_SECOND("checks answered per second", false, null, null);

    /** The ones the soak holds to: nothing of these may grow. */
    static final List<Measure> BOUNDED = List.of(HEAP_AFTER_GC, THREADS, FILE_DESCRIPTORS, CONNECTIONS, REDIS_CONNECTIONS);

    final String label;
    final boolean mustStayFlat;
    /** Null: the series is shown, not judged. */
    final Tolerance tolerance;
    /** Read from one sample; null for a rate, which needs the sample before it. */
    final ToDoubleFunction<PodSample> reading;

    Measure(String label, boolean mustStayFlat, Tolerance tolerance, ToDoubleFunction<PodSample> reading) {
        this.label = label;
        this.mustStayFlat = mustStayFlat;
        this.tolerance = tolerance;
        this.reading = reading;
    }

    /** One value per sample of one pod's life; NaN where the sample does not tell (the first of a life, for a rate). */
    double[] values(List<PodSample> life) {
        double[] out = new double[life.size()];
        for (int i = 0; i < out.length; i++) {
            PodSample sample = life.get(i);
            if (reading != null) {
                out[i] = reading.applyAsDouble(sample);
                continue;
            }
            PodSample before = i == 0 ? null : life.get(i - 1);
            if (before == null || before.life() != sample.life() || !before.scraped() || !sample.scraped()) {
                out[i] = Double.NaN;
                continue;
            }
            double checks = sample.answered() - before.answered();
            out[i] = switch (this) {
                case STORE_CALLS_PER_CHECK -> checks <= 0 ? Double.NaN : (sample.storeCallsTotal() - before.storeCallsTotal()) / checks;
                case CHECKS_PER_SECOND -> checks / (sample.seconds() - before.seconds());
                default -> throw new IllegalStateException(name());
            };
        }
        return out;
    }

    String format(double value) {
        if (Double.isNaN(value)) {
            return "–";
        }
        return switch (this) {
            case HEAP_AFTER_GC -> String.format(Locale.ROOT, "%.1f MiB", value / (1 << 20));
            case STORE_CALLS_PER_CHECK -> String.format(Locale.ROOT, "%.3f", value);
            case CHECKS_PER_SECOND -> String.format(Locale.ROOT, "%,.0f/s", value);
            default -> String.format(Locale.ROOT, Math.abs(value - Math.rint(value)) < 1e-9 ? "%,.0f" : "%,.1f", value);
        };
    }

    String formatSigned(double value) {
        return Double.isNaN(value) ? "–" : (value >= 0 ? "+" : "−") + format(Math.abs(value));
    }
}
