package dev.tollgate.limiter.metrics;

import dev.tollgate.common.check.Verdict;
import dev.tollgate.store.StoreException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The engine's meters. Tags are bounded: rule ids come from the rule book, never from a request (an
 * unknown rule id is counted without its name, or a caller could grow the registry without bound).
 * Meters are cached, so the hot path does one map lookup per meter, not a registry lookup.
 */
public final class LimiterMetrics {

    public static final String CHECKS = "tollgate.checks";
    public static final String DECISIONS = "tollgate.decisions";
    public static final String SHADOW_DENIES = "tollgate.shadow.denies";
    public static final String UNKNOWN_RULES = "tollgate.unknown.rules";
    public static final String STORE_CALLS = "tollgate.store.calls";
    public static final String FAIL_OPEN = "tollgate.fail.open";
    public static final String FAIL_CLOSED = "tollgate.fail.closed";
    public static final String LEASE_HITS = "tollgate.lease.hits";
    public static final String LEASE_STRANDED = "tollgate.lease.stranded.tokens";
    public static final String DENY_CACHE_HITS = "tollgate.deny.cache.hits";
    public static final String LOCAL_DROPS = "tollgate.local.drops";
    public static final String LEASE_LOST_ON_TIMEOUT = "tollgate.lease.lost.on.timeout";
    public static final String DEADLINE_EXCEEDED = "tollgate.check.deadline.exceeded";
    public static final String REFUNDS = "tollgate.refunds";

    /** Checks take tens of microseconds to a millisecond: histogram buckets must start well below 1 ms. */
    private static final java.time.Duration MIN_EXPECTED = java.time.Duration.ofNanos(20_000);
    /** Requirement #2: at most 1 ms added at p99; a bucket edge exactly there makes the alert exact. */
    private static final java.time.Duration LATENCY_BUDGET = java.time.Duration.ofMillis(1);

    private final MeterRegistry registry;
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();
    private final Counter unknownRules;
    private final Counter leaseHits;
    private final Counter leaseStranded;
    private final Counter denyCacheHits;
    private final Counter localDrops;
    private final Counter leaseLostOnTimeout;
    private final Counter deadlineExceeded;

    public LimiterMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.unknownRules = Counter.builder(UNKNOWN_RULES)
                .description("Entries naming a rule the pod does not know; allowed, as Envoy's service does")
                .register(registry);
        this.leaseHits = Counter.builder(LEASE_HITS)
                .description("Key groups answered from a token lease, without a store call")
                .register(registry);
        this.leaseStranded = Counter.builder(LEASE_STRANDED)
                .description("Tokens of leases that expired or were replaced unspent")
                .register(registry);
        this.denyCacheHits = Counter.builder(DENY_CACHE_HITS)
                .description("Key groups denied from the deny cache, without a store call")
                .register(registry);
        this.localDrops = Counter.builder(LOCAL_DROPS)
                .description("Key groups denied by the pod's local-first bucket, without a store call")
                .register(registry);
        this.leaseLostOnTimeout = Counter.builder(LEASE_LOST_ON_TIMEOUT)
                .description("Lease calls that timed out: the store may have granted tokens the pod never learned of")
                .register(registry);
        this.deadlineExceeded = Counter.builder(DEADLINE_EXCEEDED)
                .description("Key groups answered by their fail mode because the check's deadline passed before the store answered")
                .register(registry);
    }

    public static LimiterMetrics noop() {
        return new LimiterMetrics(new SimpleMeterRegistry());
    }

    public MeterRegistry registry() {
        return registry;
    }

    public Timer.Sample startCheck() {
        return Timer.start(registry);
    }

    public void checked(Timer.Sample sample, Verdict verdict) {
        sample.stop(timers.computeIfAbsent(CHECKS + verdict, k -> Timer.builder(CHECKS)
                .description("Limiter checks, from request to verdict")
                .tag("verdict", tag(verdict))
                .publishPercentileHistogram()
                .minimumExpectedValue(MIN_EXPECTED)
                .serviceLevelObjectives(LATENCY_BUDGET)
                .register(registry)));
    }

    public void decided(String ruleId, Verdict verdict) {
        counter(DECISIONS, ruleId, tag(verdict), "verdict", "Entries decided, by rule and verdict").increment();
    }

    public void shadowDenied(String ruleId) {
        counter(SHADOW_DENIES, ruleId, null, null, "Shadow rules that would have denied (shadow_deny)").increment();
    }

    public void unknownRule() {
        unknownRules.increment();
    }

    public void leaseHit() {
        leaseHits.increment();
    }

    public void leaseStranded(long tokens) {
        leaseStranded.increment(tokens);
    }

    public void denyCacheHit() {
        denyCacheHits.increment();
    }

    public void localDrop() {
        localDrops.increment();
    }

    public void leaseLostOnTimeout() {
        leaseLostOnTimeout.increment();
    }

    public void deadlineExceeded() {
        deadlineExceeded.increment();
    }

    /**
     * A refund of what an allowed key group spent when another group denied the request.
     *
     * @param outcome {@code lease} (put back on the pod's lease), {@code ok} (given back in the store),
     *                {@code failed} (the store did not take it back: the spend stands)
     */
    public void refunded(String outcome) {
        counters.computeIfAbsent(REFUNDS + '\u0000' + outcome, k -> Counter.builder(REFUNDS)
                .description("Spends given back because another limit of the same check denied the request")
                .tag("outcome", outcome)
                .register(registry)).increment();
    }

    public void failedOpen(String ruleId) {
        counter(FAIL_OPEN, ruleId, null, null, "Entries allowed because their counter shard could not be reached (fail_open)").increment();
    }

    public void failedClosed(String ruleId, StoreException.Kind kind) {
        counter(FAIL_CLOSED, ruleId, kind.name().toLowerCase(), "kind", "Entries denied because their counter shard could not be reached").increment();
    }

    public Timer storeCall(String script, String outcome) {
        return timers.computeIfAbsent(STORE_CALLS + script + outcome, k -> Timer.builder(STORE_CALLS)
                .description("Script calls to the counter store")
                .tag("script", script)
                .tag("outcome", outcome)
                .publishPercentileHistogram()
                .minimumExpectedValue(MIN_EXPECTED)
                .serviceLevelObjectives(LATENCY_BUDGET)
                .register(registry));
    }

    private Counter counter(String name, String ruleId, String extra, String extraTag, String description) {
        return counters.computeIfAbsent(name + '\u0000' + ruleId + '\u0000' + extra, k -> {
            Counter.Builder builder = Counter.builder(name).description(description).tag("rule", ruleId);
            if (extraTag != null) {
                builder.tag(extraTag, extra);
            }
            return builder.register(registry);
        });
    }

    private static String tag(Verdict verdict) {
        return verdict == Verdict.ALLOW ? "allow" : "deny";
    }
}
