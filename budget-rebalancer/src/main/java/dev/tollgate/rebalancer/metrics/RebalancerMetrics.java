package dev.tollgate.rebalancer.metrics;

import dev.tollgate.rebalancer.budget.Plan;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;

/** Every meter the budget rebalancer registers. Names follow Micrometer's dotted style; Prometheus shows them with underscores. */
public final class RebalancerMetrics {

    public static final String CYCLES = "tollgate.rebalancer.cycles";
    public static final String CYCLE_DURATION = "tollgate.rebalancer.cycle.duration";
    public static final String KEYS_REBALANCED = "tollgate.rebalancer.keys.rebalanced";
    public static final String KEYS_WRITTEN = "tollgate.rebalancer.keys.written";
    public static final String KEYS_RESET = "tollgate.rebalancer.keys.reset";
    public static final String KEYS_SKIPPED = "tollgate.rebalancer.keys.skipped";
    public static final String KEYS_DEFERRED = "tollgate.rebalancer.keys.deferred";
    public static final String REGIONS_UNREACHABLE = "tollgate.rebalancer.regions.unreachable";
    public static final String REGION_READS = "tollgate.rebalancer.region.reads";
    public static final String ACTIVE = "tollgate.rebalancer.active";

    /** How a cycle ended. */
    public enum Outcome {
        /** every region read, budgets written as needed */
        COMPLETE,
        /** some regions unreachable: the others rebalanced, theirs kept */
        PARTIAL,
        /** the rules store failed us: nothing written, the lock given up */
        FAILED,
        /** another instance holds the lock: nothing done */
        STANDBY;

        String tag() {
            return name().toLowerCase();
        }
    }

    private final MeterRegistry registry;
    private final Map<Outcome, Counter> cycles;
    private final Map<Outcome, Timer> durations;
    private final Counter rebalanced;
    private final Counter written;
    private final Counter reset;
    private final Counter skippedUnknownRule;
    private final Counter skippedDefaultSplit;
    private final Counter skippedBelowMinimum;
    private final Counter deferred;
    private final AtomicInteger unreachable = new AtomicInteger();
    private final AtomicInteger active = new AtomicInteger();
    private final Map<String, Counter> regionReads = new ConcurrentHashMap<>();

    public RebalancerMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.cycles = List.of(Outcome.values()).stream().collect(Collectors.toMap(Function.identity(), outcome ->
                Counter.builder(CYCLES).description("Rebalancing cycles, by outcome").tag("outcome", outcome.tag()).register(registry)));
        this.durations = List.of(Outcome.COMPLETE, Outcome.PARTIAL, Outcome.FAILED).stream().collect(Collectors.toMap(Function.identity(), outcome ->
                Timer.builder(CYCLE_DURATION).description("One cycle: read every region's usage, compute, write budgets")
                        .tag("outcome", outcome.tag()).publishPercentileHistogram().register(registry)));
        this.rebalanced = Counter.builder(KEYS_REBALANCED).description("Keys with usage whose shares a cycle computed").register(registry);
        this.written = Counter.builder(KEYS_WRITTEN).description("Keys whose shares changed enough to be written").register(registry);
        this.reset = Counter.builder(KEYS_RESET).description("Idle keys returned to the default split (rows deleted)").register(registry);
        this.skippedUnknownRule = skipped("unknown_rule", registry);
        this.skippedDefaultSplit = skipped("default_split", registry);
        this.skippedBelowMinimum = skipped("below_minimum", registry);
        this.deferred = Counter.builder(KEYS_DEFERRED)
                .description("Key changes left for a later cycle: over tollgate.rebalancer.max-keys-per-cycle").register(registry);
        Gauge.builder(REGIONS_UNREACHABLE, unreachable, AtomicInteger::get)
                .description("Regions whose usage the last cycle could not read; their shares were kept").register(registry);
        Gauge.builder(ACTIVE, active, AtomicInteger::get)
                .description("1 while this instance holds the lock and rebalances, 0 on standby").register(registry);
    }

    public void active(boolean holding) {
        active.set(holding ? 1 : 0);
    }

    public void standby() {
        active(false);
        cycles.get(Outcome.STANDBY).increment();
    }

    public void cycle(Outcome outcome, long nanos) {
        cycles.get(outcome).increment();
        durations.get(outcome).record(nanos, TimeUnit.NANOSECONDS);
    }

    /**
     * Keys with usage a cycle did not split, by {@code reason}: {@code unknown_rule} (the rules store does not
     * hold it), {@code default_split} (a rule whose keys keep the default split: per-IP and sliding-log rules,
     * reported only by pods of an older release), {@code below_minimum} (used less than
     * {@code tollgate.rebalancer.min-usage} of its limit: the default split serves it).
     */
    private static Counter skipped(String reason, MeterRegistry registry) {
        return Counter.builder(KEYS_SKIPPED).description("Keys with usage whose shares a cycle did not compute, by why")
                .tag("reason", reason).register(registry);
    }

    public void keys(int rebalancedKeys, int writtenKeys, int resetKeys, Plan.Skipped skippedKeys, int deferredKeys) {
        rebalanced.increment(rebalancedKeys);
        written.increment(writtenKeys);
        reset.increment(resetKeys);
        skippedUnknownRule.increment(skippedKeys.unknownRule());
        skippedDefaultSplit.increment(skippedKeys.defaultSplit());
        skippedBelowMinimum.increment(skippedKeys.belowMinimum());
        deferred.increment(deferredKeys);
    }

    public void regionRead(String region, boolean ok) {
        regionReads.computeIfAbsent(region + (ok ? "/ok" : "/unreachable"), k -> Counter.builder(REGION_READS)
                .description("Reads of a region's usage window, by outcome").tag("region", region)
                .tag("outcome", ok ? "ok" : "unreachable").register(registry)).increment();
    }

    public void unreachable(int regions) {
        unreachable.set(regions);
    }
}
