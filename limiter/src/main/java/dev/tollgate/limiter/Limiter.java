package dev.tollgate.limiter;

import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.check.CheckRequestValidator;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.common.check.EntryResult;
import dev.tollgate.common.check.InvalidCheckRequestException;
import dev.tollgate.common.check.Verdict;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.store.script.FixedWindows;
import dev.tollgate.store.script.GroupReply;
import dev.tollgate.store.script.Refunds;
import dev.tollgate.store.script.ScriptCall;
import dev.tollgate.store.script.Spend;
import dev.tollgate.store.script.SpendCall;
import dev.tollgate.limiter.breaker.FallbackBuckets;
import dev.tollgate.limiter.breaker.ShardBreakers;
import dev.tollgate.store.key.RedisKeys;
import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.limiter.rules.RuleBook;
import dev.tollgate.store.CounterStore;
import dev.tollgate.store.StoreException;
import dev.tollgate.limiter.usage.UsageSink;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.micrometer.core.instrument.Timer;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * Checks and spends one request's entries: the engine's entry point, usable as a plain library.
 *
 * <p>A check is a one-way pipeline of values. The entries are grouped by key (one atomic script per
 * group); each group is answered by the first stage that can: the pod's local answers, else the store
 * behind the shard's breaker, else the rule's fail mode when the store fails or the check's deadline
 * passes. Each stage returns a {@link GroupAnswer}; none throws for a store failure, and every future
 * is bounded by the deadline, so every check completes. {@link #respond} alone writes the answers
 * into the response.
 *
 * <p>Entries that share a key are checked and spent by one atomic script on that key's slot, whatever
 * their algorithms: all of them or none. Entries on different keys cannot share a script in Redis Cluster, so
 * each key group runs concurrently and the verdict is the strictest; when a group denies, the groups
 * that admitted the request give back what they spent (see the README, "A denied request spends
 * nothing").
 */
public final class Limiter {

    private static final StoreException BREAKER_OPEN =
            new StoreException(StoreException.Kind.UNAVAILABLE, "breaker_open", "the shard's breaker is open", null);
    private static final StoreException DEADLINE =
            new StoreException(StoreException.Kind.TIMEOUT, "deadline", "the store did not answer within the check's deadline", null);
    private static final RulesNotLoadedException RULES_NOT_LOADED = new RulesNotLoadedException();

    /** What {@link #prepare()} spends from: a rule of its own, on keys of its own. */
    private static final Rule PRIMING = Rule.tokenBucket("tollgate-prime", "tollgate", 1_000, 1_000);
    private static final int PRIMING_CHECKS = 3;
    static final Duration PREPARE_WAIT = Duration.ofSeconds(2);

    private final RuleBook rules;
    private final CounterStore store;
    private final LimiterMetrics metrics;
    private final CheckRequestValidator validator;
    private final ShardBreakers breakers;
    private final FailModes failModes;
    private final LocalAnswers local;
    private final IntSupplier livePods;
    private final long deadlineNanos;
    /** Lease calls in flight, by lease set: completed (never exceptionally) when the call is answered. */
    private final Map<String, CompletableFuture<Void>> leaseCalls = new ConcurrentHashMap<>();
    private final Clock clock;
    private final LongSupplier nanoTime;
    private final UsageSink usage;
    private volatile boolean prepared;

    private Limiter(Builder builder) {
        this.rules = builder.rules;
        this.store = builder.store;
        this.metrics = builder.metrics;
        this.clock = builder.clock;
        this.nanoTime = builder.nanoTime;
        this.usage = builder.usage;
        this.validator = new CheckRequestValidator(builder.settings.maxEntries());
        this.deadlineNanos = builder.settings.deadline().toNanos();
        this.breakers = new ShardBreakers(builder.settings.breaker(), builder.clock, builder.metrics.registry());
        this.failModes = new FailModes(new FallbackBuckets(builder.nanoTime), builder.livePods, builder.metrics);
        this.local = new LocalAnswers(builder.settings.optimizations(), builder.nanoTime, builder.metrics);
        this.livePods = builder.livePods;
    }

    public static Builder builder(RuleBook rules, CounterStore store) {
        return new Builder(rules, store);
    }

    /**
     * Readies what the first check on each of the store's shards would otherwise do within its deadline: it
     * builds the shard's breaker with its meters, and runs a few checks of a rule of its own through the
     * engine's store path, each on a key of its own in the shard ({@code rl:{tollgate-prime-<n>}:tollgate-prime},
     * gone within seconds), which links that code. On a cold JVM this took more than the whole deadline, so a
     * just-started pod's first check on a shard failed open though the store answered. Nothing of it reaches
     * the per-rule, decision, fail-mode or deadline metrics, nor the breakers' counts, whether it succeeds or
     * not; the store calls are counted as what they are. Call it once the store is connected, before checks
     * arrive; waits at most {@link #PREPARE_WAIT}. A shard that appears later is readied by its first check.
     */
    public void prepare() {
        Map<String, Integer> left = new HashMap<>();
        for (String shard : store.shards()) {
            left.put(shard, PRIMING_CHECKS);
        }
        Map<String, CompletableFuture<?>> checks = new HashMap<>();
        for (int i = 0; !left.isEmpty() && i < 100_000; i++) {
            String key = PRIMING.id() + "-" + i;
            String shard = store.shardOf(RedisKeys.hashTag(key));
            Integer wanted = left.get(shard);
            if (wanted == null) {
                continue;
            }
            if (wanted == 1) {
                left.remove(shard);
            } else {
                left.put(shard, wanted - 1);
            }
            KeyGroup group = new KeyGroup(new KeyGroup.Id(key, false));
            group.add(PRIMING, 1, 1, 0);
            // one after the other on a shard, as the first checks of a pod would come
            CompletableFuture<?> before = checks.getOrDefault(shard, CompletableFuture.completedFuture(null));
            checks.put(shard, before.thenCompose(done -> answer(group, nanoTime.getAsLong() + deadlineNanos)));
        }
        try {
            CompletableFuture.allOf(checks.values().toArray(CompletableFuture[]::new)).get(PREPARE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // a shard that did not answer now is readied by its first check
        } finally {
            prepared = true;
        }
    }

    /**
     * Whether {@link #prepare()} has run to its end (its checks answered, or its wait over): a pod is ready to enforce
     * only then, or its first checks can still miss their deadline on a cold JVM.
     */
    public boolean prepared() {
        return prepared;
    }

    /** Whether the group is one of {@link #prepare()}'s, which leave no trace in the metrics or the breakers. */
    private static boolean priming(KeyGroup group) {
        return group.rule(0) == PRIMING;
    }

    /** The breakers of the shards this engine has talked to, for health reporting. */
    public ShardBreakers breakers() {
        return breakers;
    }

    /**
     * @throws InvalidCheckRequestException (synchronously) when the request cannot be checked
     * @return the response, always completed within the configured deadline; completes exceptionally
     *         with a {@link StoreException} only when a fail-closed rule could not reach its shard in
     *         time, and with {@link RulesNotLoadedException} while the pod holds no rules
     */
    public CompletableFuture<CheckResponse> check(CheckRequest request) {
        validator.validate(request);
        RuleBook view = rules.view();
        if (!view.loaded()) {
            return CompletableFuture.failedFuture(RULES_NOT_LOADED);
        }
        Timer.Sample sample = metrics.startCheck();
        long deadline = nanoTime.getAsLong() + deadlineNanos;
        List<CheckEntry> entries = request.entries();
        EntryResult[] results = new EntryResult[entries.size()];
        List<KeyGroup> groups = group(request.domain(), entries, view, results);

        @SuppressWarnings("unchecked")
        CompletableFuture<GroupAnswer>[] answers = new CompletableFuture[groups.size()];
        for (int i = 0; i < answers.length; i++) {
            answers[i] = answer(groups.get(i), deadline);
        }
        return CompletableFuture.allOf(answers).thenCompose(done -> respond(sample, entries, results, groups, answers));
    }

    /** Groups the entries by key (and mode); unknown rules are answered here. */
    private List<KeyGroup> group(String domain, List<CheckEntry> entries, RuleBook view, EntryResult[] results) {
        Map<KeyGroup.Id, KeyGroup> groups = new LinkedHashMap<>();
        List<InvalidCheckRequestException.Problem> problems = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            CheckEntry entry = entries.get(i);
            Rule rule = view.find(domain, entry.rule(), entry.key());
            if (rule == null) {
                results[i] = EntryResult.unknown(entry.rule());
                metrics.unknownRule();
                continue;
            }
            KeyGroup.Id id = new KeyGroup.Id(entry.key(), rule.shadow());
            groups.computeIfAbsent(id, KeyGroup::new).add(rule, view.share(rule, entry.key()), entry.costValue(), i);
        }
        for (KeyGroup group : groups.values()) {
            for (int i = 0; i < group.size(); i++) {
                Rule rule = group.rule(i);
                if (group.cost(i) > rule.maxCost()) {
                    List<Integer> named = group.entryIndexes(i);
                    String field = "entries[" + named.get(named.size() - 1) + "].cost";
                    problems.add(new InvalidCheckRequestException.Problem(field, named.size() == 1
                            ? "is above the largest cost rule " + rule.id() + " allows (" + rule.maxCost() + ")"
                            : "entries " + named + " name rule " + rule.id() + " for one key: their costs add up to "
                              + group.cost(i) + ", above the largest cost the rule allows (" + rule.maxCost() + ")"));
                }
            }
        }
        if (!problems.isEmpty()) {
            throw new InvalidCheckRequestException(problems);
        }
        return List.copyOf(groups.values());
    }

    /** The group's answer: from the pod when it can, else from the store; one lease call per set at a time. */
    private CompletableFuture<GroupAnswer> answer(KeyGroup group, long deadline) {
        GroupAnswer answered = local.answer(group);
        if (answered != null) {
            return CompletableFuture.completedFuture(answered);
        }
        String leaseSet = local.leaseSet(group);
        if (leaseSet == null) {
            return ask(group, deadline);
        }
        // checks that arrive while the set's lease call is out wait for its grant instead of each asking for
        // a lease of their own (which would strand the grants they replace)
        CompletableFuture<Void> mine = new CompletableFuture<>();
        CompletableFuture<Void> pending = leaseCalls.putIfAbsent(leaseSet, mine);
        if (pending != null) {
            // this check already passed the deny cache and its local bucket: only the lease is left to try
            return pending.thenCompose(granted -> {
                GroupAnswer leased = local.fromLease(group);
                return leased != null ? CompletableFuture.completedFuture(leased) : ask(group, deadline);
            });
        }
        CompletableFuture<GroupAnswer> asked = ask(group, deadline);
        asked.whenComplete((done, error) -> {
            leaseCalls.remove(leaseSet, mine);
            mine.complete(null);
        });
        return asked;
    }

    /**
     * Asks the store behind the shard's breaker. The store call does its bookkeeping (breaker, what the
     * pod learns) whenever it completes, even after the deadline; the group's answer is whichever comes
     * first of the store's outcome and the deadline, turned into a verdict exactly once.
     */
    private CompletableFuture<GroupAnswer> ask(KeyGroup group, long deadline) {
        long left = deadline - nanoTime.getAsLong();
        if (left <= 0) {
            // a waiter released after its deadline (its lease call answered late): it gets the fail mode whatever
            // the store says now, so a spend made for it would only be lost (review L4)
            return CompletableFuture.completedFuture(fallBack(group, StoreOutcome.PAST_DEADLINE));
        }
        CircuitBreaker breaker;
        try {
            breaker = breakers.forShard(store.shardOf(RedisKeys.hashTag(group.key())));
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(failModes.answer(group, asStoreException(e)));
        }
        if (!breaker.tryAcquirePermission()) {
            // the shard is clearly gone: answer from the fail mode at once instead of paying its timeout
            return CompletableFuture.completedFuture(fallBack(group, BREAKER_OPEN));
        }
        return Deadlines.within(storeCall(group, breaker), left, StoreOutcome.PAST_DEADLINE)
                .thenApply(outcome -> outcome.failed() ? fallBack(group, outcome) : fromStore(group, outcome.spent()));
    }

    /** What one script call came to, as a value: the reply, or the store's failure. */
    private record StoreOutcome(Spent spent, StoreException error) {

        static final StoreOutcome PAST_DEADLINE = new StoreOutcome(null, DEADLINE);

        boolean failed() {
            return error != null;
        }
    }

    /** The script call with the breaker's and the pod's bookkeeping; never completes exceptionally. */
    private CompletableFuture<StoreOutcome> storeCall(KeyGroup group, CircuitBreaker breaker) {
        long started = breaker.getCurrentTimestamp();
        CompletableFuture<Spent> spent;
        try {
            spent = call(group, callFor(group, clock.millis()), true);
        } catch (RuntimeException e) {
            spent = CompletableFuture.failedFuture(e);
        }
        return spent.handle((value, error) -> {
            long elapsed = breaker.getCurrentTimestamp() - started;
            if (priming(group)) {
                // the traffic, not prepare(), tells whether a shard is gone: a slow priming call must not open the
                // breaker, and a reset after it could close one the traffic opened (dropping its fallback buckets)
                breaker.releasePermission();
                if (error != null) {
                    return new StoreOutcome(null, asStoreException(error));
                }
                local.learn(group, value.reply());
                return new StoreOutcome(value, null);
            }
            if (error == null) {
                breaker.onSuccess(elapsed, breaker.getTimestampUnit());
                local.learn(group, value.reply());
                return new StoreOutcome(value, null);
            }
            StoreException failure = asStoreException(error);
            if (failure.isKeyError()) {
                // one bad key says nothing of the shard: it must not send the shard's other keys to fallback
                breaker.releasePermission();
            } else {
                breaker.onError(elapsed, breaker.getTimestampUnit(), failure);
            }
            local.failed(group, failure);
            return new StoreOutcome(null, failure);
        });
    }

    /** A failed store call's answer; one past its deadline is counted as such. */
    private GroupAnswer fallBack(KeyGroup group, StoreOutcome failed) {
        if (failed == StoreOutcome.PAST_DEADLINE && !priming(group)) {
            metrics.deadlineExceeded();
        }
        return fallBack(group, failed.error());
    }

    private GroupAnswer fallBack(KeyGroup group, StoreException error) {
        if (priming(group)) {
            // prepare()'s own check: no client to answer, no fail mode to count
            return GroupAnswer.failedClosed(error);
        }
        GroupAnswer answer = failModes.answer(group, error);
        if (!answer.admitted()) {
            local.refund(group);
            return answer;
        }
        return answer.alsoRefunding(() -> local.refund(group));
    }

    /** A script call that the store answered: the call as sent (a fixed window may have been renamed) and its reply. */
    private record Spent(ScriptCall call, GroupReply reply) {
    }

    private CompletableFuture<Spent> call(KeyGroup group, ScriptCall call, boolean mayRename) {
        long started = System.nanoTime();
        return store.run(call.script(), call.keys(), call.args()).handle((reply, error) -> {
            String outcome = error == null ? "ok" : asStoreException(error).reason();
            metrics.storeCall(call.script().name(), outcome).record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
            if (error != null) {
                throw asStoreException(error);
            }
            return reply;
        }).thenCompose(reply -> {
            OptionalLong storeClock = FixedWindows.movedTo(reply);
            if (storeClock.isEmpty()) {
                return CompletableFuture.completedFuture(new Spent(call, GroupReply.parse(reply, call.keys().size())));
            }
            if (!mayRename) {
                throw new StoreException(StoreException.Kind.UNAVAILABLE, "fixed window moved twice in one check", null);
            }
            // our clock named another window than the store's TIME: rename from the store's clock
            return call(group, callFor(group, storeClock.getAsLong()), false);
        });
    }

    private ScriptCall callFor(KeyGroup group, long nowMs) {
        return SpendCall.of(group.key(), group.spends(), local.want(group), livePods.getAsInt(), nowMs);
    }

    private GroupAnswer fromStore(KeyGroup group, Spent spent) {
        GroupReply reply = spent.reply();
        long leaseLeft = Math.max(0, reply.granted() - 1);
        List<Spend> spends = group.spends();
        if (!reply.allowed()) {
            // nothing was spent; each entry still says what its own limit would have answered
            return GroupAnswer.of(group, i -> reply.remaining()[i] >= spends.get(i).cost()
                    ? EntryResult.allowed(group.rule(i).id(), reply.remaining()[i], reply.resetMs()[i])
                    : EntryResult.denied(group.rule(i).id(), reply.remaining()[i], reply.resetMs()[i], reply.retryMs()));
        }
        return GroupAnswer.of(group,
                i -> EntryResult.allowed(group.rule(i).id(), LocalAnswers.podView(reply.remaining()[i], leaseLeft, spends.get(i).cost()), reply.resetMs()[i]),
                () -> {
                    local.refund(group);
                    if (local.giveBackToLease(group)) {
                        metrics.refunded("lease");
                    } else {
                        giveBackToStore(Refunds.of(spent.call(), spends, reply));
                    }
                });
    }

    /**
     * Takes a spend back in the store. Not awaited: the check's answer does not wait for it, so the spend
     * is visible to other checks for about one round trip; a refund that fails leaves the spend standing
     * (the key under-admits by that one request), and is counted.
     */
    private void giveBackToStore(ScriptCall refund) {
        try {
            store.run(refund.script(), refund.keys(), refund.args())
                    .whenComplete((reply, error) -> metrics.refunded(error == null ? "ok" : "failed"));
        } catch (RuntimeException e) {
            metrics.refunded("failed");
        }
    }

    /** The one place answers become the response: per entry, with the decision metrics and the usage report. */
    private CompletableFuture<CheckResponse> respond(Timer.Sample sample, List<CheckEntry> entries, EntryResult[] results,
                                                     List<KeyGroup> groups, CompletableFuture<GroupAnswer>[] answers) {
        Rule[] applied = new Rule[results.length];
        for (int g = 0; g < answers.length; g++) {
            GroupAnswer answer = answers[g].join();
            if (answer.failed()) {
                refundAdmitted(answers);
                return CompletableFuture.failedFuture(answer.failure());
            }
            KeyGroup group = groups.get(g);
            List<Spend> spends = group.spends();
            for (int i = 0; i < group.size(); i++) {
                // the quota is the limit the entry was measured against, for the RateLimit headers
                EntryResult result = answer.results().get(i).withQuotaOf(group.rule(i));
                metrics.decided(result.rule(), result.verdict());
                metrics.hit(group.rule(i), result.verdict(), group.cost(i), result.remaining(), spends.get(i).share());
                long cost = 0;
                for (int entry : group.entryIndexes(i)) {
                    results[entry] = result;
                    applied[entry] = group.rule(i);
                    cost += entries.get(entry).costValue();
                }
                if (group.shadow() && result.verdict() == Verdict.DENY) {
                    metrics.shadowDenied(result.rule());
                    usage.shadowDenied(result.rule(), cost);
                }
            }
        }
        CheckResponse response = CheckResponse.of(Arrays.asList(results));
        metrics.checked(sample, response.verdict());
        if (response.allowed()) {
            recordUsage(entries, results, applied);
        } else {
            refundAdmitted(answers);
        }
        return CompletableFuture.completedFuture(response);
    }

    /**
     * A denied request spends nothing: every key group that admitted it gives back what it spent. The
     * limits of one key are all-or-nothing in their script already; this covers the groups on other keys
     * (an account bucket beside a per-IP login log), which Redis Cluster cannot put in one script.
     */
    private static void refundAdmitted(CompletableFuture<GroupAnswer>[] answers) {
        for (CompletableFuture<GroupAnswer> future : answers) {
            GroupAnswer answer = future.join();
            if (answer.admitted()) {
                answer.refund().run();
            }
        }
    }

    /**
     * Admitted spends of enforced rules whose limits are split across regions, for the region's usage
     * report: what the budget rebalancer splits by (shadow and unknown rules spend nothing real). Nothing
     * else is reported, so keys a caller chooses (per-IP limits, login logs) cost no memory here, no
     * place under the recorder's cap on keys per interval, and no Redis write.
     */
    private void recordUsage(List<CheckEntry> entries, EntryResult[] results, Rule[] applied) {
        for (int i = 0; i < results.length; i++) {
            EntryResult result = results[i];
            if (result.verdict() == Verdict.ALLOW && result.unknownRule() == null && result.shadow() == null
                    && applied[i] != null && applied[i].regionBudgeted()) {
                usage.admitted(result.rule(), entries.get(i).key(), entries.get(i).costValue());
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
