package dev.tollgate.limiter.usage;

import dev.tollgate.store.RedisStoreSettings;
import dev.tollgate.store.key.UsageKeys;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts a pod's admitted cost per (rule, key) in memory and writes it to the region's Redis at least
 * once a second, from a thread of its own, in the layout {@link UsageKeys} describes.
 *
 * <p>The request path only adds to a {@link LongAdder} in a map: no I/O, no lock, nothing that throws.
 * Each flush swaps in a fresh map and writes the old one, so memory is bounded by one interval's
 * distinct keys (capped by {@link UsageSettings#maxKeysPerInterval()}), and a key with no traffic costs
 * nothing. Usage is advisory: a flush that fails is counted and its counts are dropped, never retried,
 * and a count that races the swap by nanoseconds may be lost.
 *
 * <p>Beside the admitted usage it counts, per rule, every checked entry and whether the rule denied it, for a
 * simulation of another version of the rule ({@link UsageKeys#checks}). Those are bounded per rule: at most
 * {@value #SAMPLED_KEYS_PER_RULE} keys of a rule per interval. A rule with more keys in an interval goes one
 * sampling level down (half its keys, chosen by {@link UsageKeys#sampled}, the same on every pod) from that interval
 * on, and back up one level when an interval holds under a quarter of the bound, so a key's windows stay whole while
 * it is in the sample; the level is written with the counts and the reader scales by it.
 *
 * <p>An interval's counts are put in the window that holds the interval's midpoint, by the pod's clock.
 * Pods' clocks differ by milliseconds, which moves a few counts across a window edge: harmless to a
 * share computed from 10 s of traffic.
 */
public final class UsageRecorder implements UsageSink, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(UsageRecorder.class);

    /** Keys of one rule counted per interval for simulations; past it the rule's sample halves. */
    static final int SAMPLED_KEYS_PER_RULE = 1_000;

    /**
     * A rule's key, as an interval counts it: looked up for every admitted entry, so with its own {@code hashCode} and
     * {@code equals}; a record's go through method handles the JIT did not fold on the check path (JFR).
     */
    private record Counted(String ruleId, String key) {
        @Override
        public int hashCode() {
            return ruleId.hashCode() * 31 + key.hashCode();
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Counted counted && key.equals(counted.key) && ruleId.equals(counted.ruleId);
        }
    }

    /** Looked up for every denied entry: its own {@code hashCode} and {@code equals}, as {@link Counted}. */
    private record Denied(String ruleId, long version, boolean shadow) {
        @Override
        public int hashCode() {
            return (ruleId.hashCode() * 31 + Long.hashCode(version)) * 2 + (shadow ? 1 : 0);
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Denied denied && version == denied.version && shadow == denied.shadow && ruleId.equals(denied.ruleId);
        }
    }

    private record Batch(String hash, Map<String, Long> fields, Duration ttl) {
    }

    /** One key's checked and denied cost in an interval. */
    private static final class Checked {
        final LongAdder checks = new LongAdder();
        final LongAdder denied = new LongAdder();
    }

    /** One rule's sampled keys in an interval, at the sampling level the interval started with. */
    private static final class RuleChecks {
        final Map<String, Checked> keys = new ConcurrentHashMap<>();
        final AtomicInteger size = new AtomicInteger();
        final int level;
        volatile boolean overflowed;

        RuleChecks(int level) {
            this.level = level;
        }
    }

    /** One interval's counts, and how many distinct keys it holds (the cap is checked against it). */
    private static final class Interval {
        final Map<Counted, LongAdder> counts;
        /** Per rule, so bounded by the rules in force: no cap needed. */
        final Map<String, LongAdder> shadowDenies = new ConcurrentHashMap<>();
        /** Per rule version: bounded by the rules in force and their canaries. */
        final Map<Denied, LongAdder> denies = new ConcurrentHashMap<>();
        final AtomicInteger keys = new AtomicInteger();
        /** Per rule, so bounded by the rules in force; each rule's keys by {@link #SAMPLED_KEYS_PER_RULE}. */
        final Map<String, RuleChecks> checks = new ConcurrentHashMap<>();
        final long startMillis;

        /**
         * @param expectedKeys the keys counted in the interval before: sized for them, the map does not grow (a copy of
         *                     every entry so far, on a request's thread) a dozen times every interval under steady traffic
         */
        Interval(long startMillis, int expectedKeys) {
            this.startMillis = startMillis;
            this.counts = new ConcurrentHashMap<>(Math.max(16, expectedKeys));
        }
    }

    private final UsageStore store;
    private final UsageSettings settings;
    private final Clock clock;
    private final UsageMetrics metrics;
    private final ScheduledExecutorService flusher;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicBoolean warnedOnce = new AtomicBoolean();
    private volatile Interval current;
    /** Each rule's sampling level, kept from one interval to the next; a rule at level 0 has no entry. */
    private final Map<String, Integer> levels = new ConcurrentHashMap<>();

    UsageRecorder(UsageStore store, UsageSettings settings, MeterRegistry registry, Clock clock) {
        this.store = store;
        this.settings = settings;
        this.clock = clock;
        this.metrics = new UsageMetrics(registry);
        this.current = new Interval(clock.millis(), 0);
        this.flusher = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "tollgate-usage-flush");
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * A recorder that writes to the region's Redis Cluster on a connection of its own; it connects in the
     * background, and flushes fail (counted) until it has. {@code redis} is the check path's settings:
     * the command timeout is replaced by {@link UsageSettings#flushTimeout()}.
     */
    public static UsageRecorder start(RedisStoreSettings redis, UsageSettings settings, MeterRegistry registry) {
        RedisUsageStore store = RedisUsageStore.connect(redis.withCommandTimeout(settings.flushTimeout()));
        return start(store, settings, registry, Clock.systemUTC());
    }

    /** A recorder over any store; it owns the store and closes it. */
    public static UsageRecorder start(UsageStore store, UsageSettings settings, MeterRegistry registry, Clock clock) {
        UsageRecorder recorder = new UsageRecorder(store, settings, registry, clock);
        long interval = settings.flushInterval().toMillis();
        recorder.flusher.scheduleAtFixedRate(recorder::flushQuietly, interval, interval, TimeUnit.MILLISECONDS);
        return recorder;
    }

    @Override
    public void admitted(String ruleId, String key, long cost) {
        try {
            Interval interval = current;
            Counted counted = new Counted(ruleId, key);
            LongAdder adder = interval.counts.get(counted);
            if (adder == null) {
                // checked before inserting, so concurrent newcomers may pass it together: the cap is
                // exceeded by at most the number of request threads, which still bounds memory
                if (interval.keys.get() >= settings.maxKeysPerInterval()) {
                    metrics.overCap();
                    return;
                }
                adder = interval.counts.computeIfAbsent(counted, k -> {
                    interval.keys.incrementAndGet();
                    return new LongAdder();
                });
            }
            adder.add(cost);
        } catch (RuntimeException e) {
            // never into the request path: losing one advisory count is the whole cost
            log.debug("usage not counted", e);
        }
    }

    @Override
    public void shadowDenied(String ruleId, long cost) {
        try {
            current.shadowDenies.computeIfAbsent(ruleId, rule -> new LongAdder()).add(cost);
        } catch (RuntimeException e) {
            log.debug("shadow deny not counted", e);
        }
    }

    @Override
    public void denied(String ruleId, long version, boolean shadow, long cost) {
        try {
            current.denies.computeIfAbsent(new Denied(ruleId, version, shadow), denied -> new LongAdder()).add(cost);
        } catch (RuntimeException e) {
            log.debug("deny not counted", e);
        }
    }

    @Override
    public void checked(String ruleId, String key, long cost, boolean denied) {
        try {
            Map<String, RuleChecks> checks = current.checks;
            RuleChecks known = checks.get(ruleId);
            // computeIfAbsent on a miss only: its capturing lambda is an allocation, and this runs for every checked entry
            RuleChecks rule = known != null ? known : checks.computeIfAbsent(ruleId, id -> new RuleChecks(levels.getOrDefault(id, 0)));
            if (!UsageKeys.sampled(key, rule.level)) {
                return;
            }
            Checked checked = rule.keys.get(key);
            if (checked == null) {
                // as for admitted: concurrent newcomers may pass the bound together, by at most the request threads
                if (rule.size.get() >= SAMPLED_KEYS_PER_RULE) {
                    rule.overflowed = true;
                    return;
                }
                checked = rule.keys.computeIfAbsent(key, k -> {
                    rule.size.incrementAndGet();
                    return new Checked();
                });
            }
            checked.checks.add(cost);
            if (denied) {
                checked.denied.add(cost);
            }
        } catch (RuntimeException e) {
            log.debug("check not counted", e);
        }
    }

    /** Writes the interval that just ended; never throws (a scheduled task that throws is never run again). */
    private void flushQuietly() {
        try {
            flush();
        } catch (RuntimeException e) {
            log.warn("usage flush failed unexpectedly: {}", e.toString());
        }
    }

    /** Swaps in a fresh interval and writes the one that ended. Visible for tests, which flush by hand. */
    void flush() {
        long now = clock.millis();
        Interval done = current;
        current = new Interval(now, Math.min(done.keys.get(), settings.maxKeysPerInterval()));
        if (done.counts.isEmpty() && done.shadowDenies.isEmpty() && done.denies.isEmpty() && done.checks.isEmpty()) {
            return;
        }
        long window = UsageKeys.windowStart(done.startMillis + (now - done.startMillis) / 2);
        Map<String, Map<String, Long>> byHash = new HashMap<>();
        // by shard first: each shard's hash named once, not once per key
        @SuppressWarnings("unchecked")
        Map<String, Long>[] byShard = new Map[UsageKeys.SHARDS];
        long invalid = 0;
        for (Map.Entry<Counted, LongAdder> entry : done.counts.entrySet()) {
            long cost = entry.getValue().sum();
            String field = UsageKeys.field(entry.getKey().ruleId(), entry.getKey().key());
            if (field == null) {
                invalid++;
            } else if (cost > 0) {
                int shard = UsageKeys.shardOf(field);
                if (byShard[shard] == null) {
                    byShard[shard] = new HashMap<>();
                    byHash.put(UsageKeys.window(shard, window), byShard[shard]);
                }
                byShard[shard].put(field, cost);
            }
        }
        for (Map.Entry<String, LongAdder> entry : done.shadowDenies.entrySet()) {
            long cost = entry.getValue().sum();
            if (cost > 0) {
                byHash.computeIfAbsent(UsageKeys.shadowDenies(window), hash -> new HashMap<>()).put(entry.getKey(), cost);
            }
        }
        for (Map.Entry<Denied, LongAdder> entry : done.denies.entrySet()) {
            long cost = entry.getValue().sum();
            Denied denied = entry.getKey();
            String field = UsageKeys.denialField(denied.ruleId(), denied.version(), denied.shadow());
            if (field == null) {
                invalid++;
            } else if (cost > 0) {
                byHash.computeIfAbsent(UsageKeys.versionDenies(window), hash -> new HashMap<>()).put(field, cost);
            }
        }
        if (invalid > 0) {
            metrics.invalid(invalid);
        }
        List<Batch> batches = new ArrayList<>(byHash.size() + done.checks.size());
        byHash.forEach((hash, fields) -> batches.add(new Batch(hash, fields, UsageKeys.RETENTION)));
        done.checks.forEach((ruleId, rule) -> checksOf(ruleId, rule, window).ifPresent(batches::add));
        write(batches);
    }

    /**
     * One rule's sampled checks, at the level they end the interval with: one level down when the rule had more keys
     * than the bound (only the keys of the smaller sample are written, so the window is whole at that level), and the
     * next interval one level up when it had under a quarter of them.
     */
    private Optional<Batch> checksOf(String ruleId, RuleChecks rule, long window) {
        int level = rule.overflowed ? Math.min(rule.level + 1, UsageKeys.MAX_SAMPLING_LEVEL) : rule.level;
        int next = !rule.overflowed && rule.level > 0 && rule.size.get() < SAMPLED_KEYS_PER_RULE / 4 ? rule.level - 1 : level;
        if (next == 0) {
            levels.remove(ruleId);
        } else {
            levels.put(ruleId, next);
        }
        Map<String, Long> fields = new HashMap<>();
        rule.keys.forEach((key, checked) -> {
            long checks = checked.checks.sum();
            if (checks > 0 && UsageKeys.sampled(key, level)) {
                fields.put("c:" + key, checks);
                long denied = checked.denied.sum();
                if (denied > 0) {
                    fields.put("d:" + key, denied);
                }
            }
        });
        if (fields.isEmpty()) {
            return Optional.empty();
        }
        fields.put("l:" + level, 1L);
        return Optional.of(new Batch(UsageKeys.checks(ruleId, window), fields, UsageKeys.CHECKS_RETENTION));
    }

    private void write(List<Batch> batches) {
        long started = System.nanoTime();
        List<CompletableFuture<Void>> calls = new ArrayList<>(batches.size());
        List<Integer> sizes = new ArrayList<>(batches.size());
        for (Batch batch : batches) {
            sizes.add(batch.fields().size());
            try {
                calls.add(store.add(batch.hash(), batch.fields(), batch.ttl()));
            } catch (RuntimeException e) {
                calls.add(CompletableFuture.failedFuture(e));
            }
        }
        Throwable failure = null;
        try {
            CompletableFuture.allOf(calls.toArray(CompletableFuture<?>[]::new))
                    .get(settings.flushTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failure = e;
        } catch (TimeoutException e) {
            failure = e;
        } catch (Exception e) {
            failure = e.getCause() == null ? e : e.getCause();
        }
        long stored = 0;
        long lost = 0;
        for (int i = 0; i < calls.size(); i++) {
            CompletableFuture<Void> call = calls.get(i);
            if (call.isDone() && !call.isCompletedExceptionally()) {
                stored += sizes.get(i);
            } else {
                lost += sizes.get(i);
            }
        }
        long elapsed = System.nanoTime() - started;
        if (lost == 0) {
            metrics.flushed(stored, elapsed);
            warnedOnce.set(false);
            return;
        }
        metrics.flushFailed(lost, stored, elapsed);
        // once per outage at WARN; tollgate.usage.flushes{outcome=failed} shows how long it lasts
        if (warnedOnce.compareAndSet(false, true)) {
            log.warn("usage flush to Redis failed, {} counts dropped (usage is advisory; budgets keep their last shares): {}",
                    lost, failure == null ? "a write failed" : failure.toString());
        }
    }

    /** Stops the flusher, writes what was counted since the last flush, and closes the store. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        flusher.shutdown();
        try {
            if (!flusher.awaitTermination(settings.flushTimeout().toMillis() * 2, TimeUnit.MILLISECONDS)) {
                flusher.shutdownNow();
            }
            flushQuietly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            try {
                store.close();
            } catch (Exception e) {
                log.debug("closing the usage store failed", e);
            }
        }
    }
}
