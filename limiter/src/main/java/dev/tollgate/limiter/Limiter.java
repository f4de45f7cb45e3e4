package dev.tollgate.limiter;

import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.limiter.breaker.ShardBreakers;
import dev.tollgate.limiter.check.CheckPipeline;
import dev.tollgate.limiter.hotkeys.HotKeys;
import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.limiter.rules.RuleBook;
import dev.tollgate.limiter.usage.UsageSink;
import dev.tollgate.store.CounterStore;

import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * Checks and spends one request's entries: the engine's entry point, usable as a plain library. Each check ends
 * in one {@link Outcome}, never an exception.
 *
 * <p>Entries that share a key are checked and spent by one atomic script on that key's slot, whatever their
 * algorithms: all of them or none. Entries on different keys cannot share a script in Redis Cluster, so each key
 * group runs concurrently and the verdict is the strictest; when a group denies, the groups that admitted the
 * request give back what they spent (see docs/check-api.md, "Atomicity: a denied request spends nothing"). How a check flows is
 * {@link CheckPipeline}'s.
 */
public final class Limiter implements AutoCloseable {

    static final Duration PREPARE_WAIT = CheckPipeline.prepareWait();

    private final CheckPipeline pipeline;

    private Limiter(Builder builder) {
        this.pipeline = new CheckPipeline(builder.rules, builder.store, builder.settings, builder.metrics, builder.clock,
                builder.nanoTime, builder.livePods, builder.podId, builder.usage);
    }

    public static Builder builder(RuleBook rules, CounterStore store) {
        return new Builder(rules, store);
    }

    /**
     * Readies what the first check on each of the store's shards would otherwise do within its deadline (its
     * breaker with its meters, the store call's code), on keys of its own, leaving no trace in the per-rule,
     * decision, fail-mode or deadline metrics, nor in the breakers' counts. Call it once the store is connected,
     * before checks arrive; waits at most {@link #PREPARE_WAIT}. A shard that appears later is readied by its first
     * check.
     */
    public void prepare() {
        pipeline.prepare();
    }

    /**
     * Whether {@link #prepare()} has run to its end (its calls answered, or its wait over): a pod is ready to enforce
     * only then, or its first checks can still miss their deadline on a cold JVM.
     */
    public boolean prepared() {
        return pipeline.prepared();
    }

    /** The breakers of the shards this engine has talked to, for health reporting. */
    public ShardBreakers breakers() {
        return pipeline.breakers();
    }

    /** The keys and slots that took this pod's store calls lately, for finding a hot key before it hurts a primary. */
    public HotKeys hotKeys() {
        return pipeline.hotKeys();
    }

    /**
     * @return the check's outcome, always completed within the configured deadline; it completes exceptionally
     *         only on a defect of the engine, never for bad input, a store failure or a pod without rules
     */
    public CompletableFuture<Outcome> check(CheckRequest request) {
        return pipeline.check(request);
    }

    /**
     * What {@link #check} would answer for this request now, and why, per entry: the rule and override in force, the
     * region's share, the stage that would answer and the counters as the store holds them. Spends nothing, writes
     * nothing to the store and changes nothing a later check reads; never completes exceptionally.
     */
    public CompletableFuture<Explanation> explain(CheckRequest request) {
        return pipeline.explain(request);
    }

    /**
     * Stops the engine's background work (the count-after flushes, started by the first count-after check). Counts
     * not yet flushed are dropped. The store is the caller's and stays open.
     */
    @Override
    public void close() {
        pipeline.close();
    }

    /** Assembles a limiter; only the rules and the store are required. */
    public static final class Builder {

        private final RuleBook rules;
        private final CounterStore store;
        private LimiterSettings settings = LimiterSettings.DEFAULTS;
        private LimiterMetrics metrics = LimiterMetrics.noop();
        private Clock clock = Clock.systemUTC();
        private LongSupplier nanoTime = System::nanoTime;
        private IntSupplier livePods = () -> 1;
        private String podId = "pod-" + UUID.randomUUID();
        private UsageSink usage = UsageSink.NONE;

        private Builder(RuleBook rules, CounterStore store) {
            this.rules = rules;
            this.store = store;
        }

        public Builder settings(LimiterSettings value) {
            this.settings = value;
            return this;
        }

        public Builder metrics(LimiterMetrics value) {
            this.metrics = value;
            return this;
        }

        /** Wall time: names fixed windows (checked against the store's TIME) and times the breakers. */
        public Builder clock(Clock value) {
            this.clock = value;
            return this;
        }

        /** Monotonic time for the pod's own buckets and the check's deadline. */
        public Builder nanoTime(LongSupplier value) {
            this.nanoTime = value;
            return this;
        }

        /** The live pods of the region, which size fallback buckets and leases. */
        public Builder livePods(IntSupplier value) {
            this.livePods = value;
            return this;
        }

        /**
         * This pod's id (the pod registry's), by which the store counts the pods that ask for a key's leases and
         * sizes each lease for them; unique per engine by default, which is all the count needs.
         */
        public Builder podId(String value) {
            if (value == null || value.isBlank()) {
                throw new IllegalArgumentException("the pod id must not be blank");
            }
            this.podId = value;
            return this;
        }

        /** Told of every admitted entry of a limit split across regions, to report the region's usage. */
        public Builder usage(UsageSink value) {
            this.usage = value;
            return this;
        }

        public Limiter build() {
            return new Limiter(this);
        }
    }
}
