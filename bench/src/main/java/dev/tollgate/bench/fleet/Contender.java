package dev.tollgate.bench.fleet;

import dev.tollgate.limiter.Limiter;
import dev.tollgate.limiter.LimiterSettings;
import dev.tollgate.limiter.Optimizations;
import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.limiter.rules.RuleBook;
import dev.tollgate.store.CounterStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.time.Duration;

/**
 * One column of a side-by-side table: the per-pod-local baseline, or Tollgate with a set of
 * optimizations switched on.
 *
 * @param optimizations null for the baseline
 */
public record Contender(String name, Optimizations optimizations) {

    private static final Duration LEASE_TTL = Duration.ofSeconds(1);

    public static final Contender BASELINE = new Contender("per-pod local", null);
    public static final Contender PER_REQUEST = new Contender("Tollgate NONE", Optimizations.NONE);
    public static final Contender OPTIMIZED = new Contender("Tollgate ALL", Optimizations.ALL);
    public static final Contender DENY_CACHE = new Contender("deny cache",
            new Optimizations(false, false, true, 1, LEASE_TTL));
    public static final Contender DENY_CACHE_AND_LEASES = new Contender("deny cache + leases",
            new Optimizations(false, true, true, Optimizations.ALL.leaseWant(), LEASE_TTL));
    public static final Contender LEASES_ONLY = new Contender("leases only",
            new Optimizations(false, true, false, Optimizations.ALL.leaseWant(), LEASE_TTL));

    public boolean baseline() {
        return optimizations == null;
    }

    /**
     * @param configuredPods what the baseline divides each limit by (its fleet size when it was set up)
     */
    public Fleet fleet(int pods, int configuredPods, RuleBook rules, CounterStore store, LimiterSettings settings) {
        if (baseline()) {
            return new Fleet(pods, live -> new LocalPod(rules, configuredPods), null);
        }
        LimiterSettings withOptimizations = settings.withOptimizations(optimizations);
        // one registry for the fleet, so that lease hits, deny-cache hits and local drops add up over its pods
        MeterRegistry registry = new SimpleMeterRegistry();
        return new Fleet(pods, live -> new TollgatePod(Limiter.builder(rules, store)
                .settings(withOptimizations)
                .metrics(new LimiterMetrics(registry))
                .livePods(live)
                .build()), registry);
    }
}
