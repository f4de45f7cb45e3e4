package dev.tollgate.limiter;

import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.check.CheckRequestValidator;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.common.check.EntryResult;
import dev.tollgate.common.check.InvalidCheckRequestException;
import dev.tollgate.common.check.Verdict;
import dev.tollgate.common.rule.Algorithm;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.limiter.algorithm.FixedWindows;
import dev.tollgate.limiter.algorithm.GroupReply;
import dev.tollgate.limiter.algorithm.ScriptCall;
import dev.tollgate.limiter.algorithm.SlidingLogs;
import dev.tollgate.limiter.algorithm.Spend;
import dev.tollgate.limiter.algorithm.TokenBuckets;
import dev.tollgate.limiter.breaker.FallbackBuckets;
import dev.tollgate.limiter.breaker.ShardBreakers;
import dev.tollgate.limiter.key.RedisKeys;
import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.limiter.rules.RuleBook;
import dev.tollgate.limiter.store.CounterStore;
import dev.tollgate.limiter.store.StoreException;
import dev.tollgate.limiter.usage.UsageSink;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.micrometer.core.instrument.Timer;

import java.time.Clock;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * Checks and spends one request's entries: the engine's entry point, usable as a plain library.
 *
 * <p>Entries that share a key (and algorithm) are checked and spent by one atomic script on that key's
 * slot: all of them or none. Entries on different keys cannot share a script in Redis Cluster, so
 * each key group runs concurrently and the verdict is the strictest; a group that was allowed has
 * spent even when another group denied the request (see the README, "Partial spends").
 */
public final class Limiter {

    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);
    private static final StoreException BREAKER_OPEN =
            new StoreException(StoreException.Kind.UNAVAILABLE, "breaker_open", "the shard's breaker is open", null);

    private final RuleBook rules;
    private final CounterStore store;
    private final LimiterMetrics metrics;
    private final CheckRequestValidator validator;
    private final ShardBreakers breakers;
    private final FailModes failModes;
    private final LocalAnswers local;
    private final IntSupplier livePods;
    /** Lease calls in flight, by lease set: completed (never exceptionally) when the call is answered. */
    private final Map<String, CompletableFuture<Void>> leaseCalls = new ConcurrentHashMap<>();
    private final Clock clock;
    private final UsageSink usage;

    private Limiter(Builder builder) {
        this.rules = builder.rules;
        this.store = builder.store;
        this.metrics = builder.metrics;
        this.clock = builder.clock;
        this.usage = builder.usage;
        this.validator = new CheckRequestValidator(builder.settings.maxEntries());
        FallbackBuckets fallback = new FallbackBuckets(builder.nanoTime);
        this.breakers = new ShardBreakers(builder.settings.breaker(), builder.clock, builder.metrics.registry(), fallback::drop);
        this.failModes = new FailModes(fallback, builder.livePods, builder.metrics);
        this.local = new LocalAnswers(builder.settings.optimizations(), builder.nanoTime, builder.metrics);
        this.livePods = builder.livePods;
    }

    public static Builder builder(RuleBook rules, CounterStore store) {
        return new Builder(rules, store);
    }

    /** The breakers of the shards this engine has talked to, for health reporting. */
    public ShardBreakers breakers() {
        return breakers;
    }

    /**
     * @throws InvalidCheckRequestException (synchronously) when the request cannot be checked
     * @return the response; completes exceptionally with a {@link StoreException} only when a
     *         fail-closed rule could not reach its shard
     */
    public CompletableFuture<CheckResponse> check(CheckRequest request) {
        validator.validate(request);
        Timer.Sample sample = metrics.startCheck();
        List<CheckEntry> entries = request.entries();
        EntryResult[] results = new EntryResult[entries.size()];
        Map<KeyGroup.Id, KeyGroup> groups = group(request.domain(), entries, results);

        CompletableFuture<?>[] calls = new CompletableFuture<?>[groups.size()];
        int next = 0;
        for (KeyGroup group : groups.values()) {
            calls[next++] = run(group, results);
        }
        return CompletableFuture.allOf(calls).thenApply(done -> {
            CheckResponse response = CheckResponse.of(Arrays.asList(results));
            metrics.checked(sample, response.verdict());
            recordUsage(entries, results);
            return response;
        });
    }

    private Map<KeyGroup.Id, KeyGroup> group(String domain, List<CheckEntry> entries, EntryResult[] results) {
        Map<KeyGroup.Id, KeyGroup> groups = new LinkedHashMap<>();
        List<InvalidCheckRequestException.Problem> problems = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            CheckEntry entry = entries.get(i);
            Rule rule = rules.find(domain, entry.rule(), entry.key());
            if (rule == null) {
                results[i] = EntryResult.unknown(entry.rule());
                metrics.unknownRule();
                continue;
            }
            int cost = entry.costValue();
            if (cost > rule.maxCost()) {
                problems.add(new InvalidCheckRequestException.Problem("entries[" + i + "].cost",
                        "is " + cost + ", above the largest cost rule " + rule.id() + " allows (" + rule.maxCost() + ")"));
                continue;
            }
            KeyGroup.Id id = new KeyGroup.Id(entry.key(), rule.algorithm(), rule.shadow());
            groups.computeIfAbsent(id, KeyGroup::new).add(rule, rules.share(rule, entry.key()), cost, i);
        }
        if (!problems.isEmpty()) {
            throw new InvalidCheckRequestException(problems);
        }
        return groups;
    }

    private CompletableFuture<Void> run(KeyGroup group, EntryResult[] results) {
        if (local.answer(group, results)) {
            return DONE;
        }
        String leaseSet = local.leaseSet(group);
        if (leaseSet == null) {
            return ask(group, results);
        }
        // one lease call per set of buckets at a time: checks that arrive while it is out wait for its grant
        // instead of each asking for a lease of their own (which would strand the grants they replace)
        CompletableFuture<Void> mine = new CompletableFuture<>();
        CompletableFuture<Void> pending = leaseCalls.putIfAbsent(leaseSet, mine);
        if (pending != null) {
            // this check already passed the deny cache and its local bucket: only the lease is left to try
            return pending.thenCompose(granted -> local.fromLease(group, results) ? DONE : ask(group, results));
        }
        return ask(group, results).whenComplete((done, error) -> {
            leaseCalls.remove(leaseSet, mine);
            mine.complete(null);
        });
    }

    /** Asks the store, or the fallback when the shard's breaker is open. */
    private CompletableFuture<Void> ask(KeyGroup group, EntryResult[] results) {
        String shard = store.shardOf(RedisKeys.hashTag(group.key()));
        CircuitBreaker breaker = breakers.forShard(shard);
        if (!breaker.tryAcquirePermission()) {
            // the shard is clearly gone: answer from fallback at once instead of paying its timeout
            failModes.answer(group, shard, BREAKER_OPEN, results);
            return DONE;
        }
        long started = breaker.getCurrentTimestamp();
        return call(group, callFor(group, clock.millis()), true)
                .handle((reply, error) -> {
                    long elapsed = breaker.getCurrentTimestamp() - started;
                    if (error != null) {
                        StoreException failure = asStoreException(error);
                        breaker.onError(elapsed, breaker.getTimestampUnit(), failure);
                        failModes.answer(group, shard, failure, results);
                    } else {
                        breaker.onSuccess(elapsed, breaker.getTimestampUnit());
                        local.learn(group, reply);
                        record(group, reply, results);
                    }
                    return null;
                });
    }

    private CompletableFuture<GroupReply> call(KeyGroup group, ScriptCall call, boolean mayRename) {
        long started = System.nanoTime();
        return store.run(call.script(), call.keys(), call.args()).handle((reply, error) -> {
            String outcome = error == null ? "ok" : asStoreException(error).reason();
            metrics.storeCall(call.script().name(), outcome).record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
            if (error != null) {
                throw asStoreException(error);
            }
            return reply;
        }).thenCompose(reply -> {
            if (reply.get(0) == FixedWindows.WRONG_WINDOW) {
                if (!mayRename) {
                    throw new StoreException(StoreException.Kind.UNAVAILABLE, "fixed window moved twice in one check", null);
                }
                // our clock named another window than the store's TIME: rename from the store's clock
                return call(group, callFor(group, reply.get(1)), false);
            }
            return CompletableFuture.completedFuture(GroupReply.parse(reply, call.keys().size()));
        });
    }

    /** Admitted spends of enforced rules, for the region's usage report (shadow and unknown rules spend nothing real). */
    private void recordUsage(List<CheckEntry> entries, EntryResult[] results) {
        for (int i = 0; i < results.length; i++) {
            EntryResult result = results[i];
            if (result.verdict() == Verdict.ALLOW && result.unknownRule() == null && result.shadow() == null) {
                usage.admitted(result.rule(), entries.get(i).key(), entries.get(i).costValue());
            }
        }
    }

    private ScriptCall callFor(KeyGroup group, long nowMs) {
        Algorithm algorithm = group.id().algorithm();
        return switch (algorithm) {
            case TOKEN_BUCKET -> TokenBuckets.call(group.key(), group.spends(), local.want(group), livePods.getAsInt());
            case SLIDING_LOG -> SlidingLogs.call(group.key(), group.spends());
            case FIXED_WINDOW -> FixedWindows.call(group.key(), group.spends(), nowMs);
        };
    }

    private void record(KeyGroup group, GroupReply reply, EntryResult[] results) {
        long leaseLeft = Math.max(0, reply.granted() - 1);
        List<Spend> spends = group.spends();
        for (int i = 0; i < group.size(); i++) {
            String ruleId = group.rule(i).id();
            EntryResult result = reply.allowed()
                    ? EntryResult.allowed(ruleId, LocalAnswers.podView(reply.remaining()[i], leaseLeft, spends.get(i).cost()), reply.resetMs()[i])
                    : EntryResult.denied(ruleId, reply.remaining()[i], reply.resetMs()[i], reply.retryMs());
            if (group.shadow()) {
                result = result.asShadow();
                if (!reply.allowed()) {
                    metrics.shadowDenied(ruleId);
                }
            }
            metrics.decided(ruleId, reply.allowed() ? Verdict.ALLOW : Verdict.DENY);
            for (int entry : group.entryIndexes(i)) {
                results[entry] = result;
            }
        }
    }

    private static StoreException asStoreException(Throwable error) {
        Throwable cause = error;
        while (!(cause instanceof StoreException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof StoreException store) {
            return store;
        }
        return new StoreException(StoreException.Kind.UNAVAILABLE, "store call failed: " + cause.getClass().getSimpleName(), null);
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

        /** Monotonic time for the pod's own buckets. */
        public Builder nanoTime(LongSupplier value) {
            this.nanoTime = value;
            return this;
        }

        /** The live pods of the region, which size fallback buckets and leases. */
        public Builder livePods(IntSupplier value) {
            this.livePods = value;
            return this;
        }

        /** Told of every admitted entry, to report the region's usage. */
        public Builder usage(UsageSink value) {
            this.usage = value;
            return this;
        }

        public Limiter build() {
            return new Limiter(this);
        }
    }
}
