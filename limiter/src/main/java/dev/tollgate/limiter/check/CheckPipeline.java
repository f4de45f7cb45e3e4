package dev.tollgate.limiter.check;

import dev.tollgate.common.check.CheckProblem;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.common.check.CheckRequestValidator;
import dev.tollgate.limiter.Explanation;
import dev.tollgate.limiter.LimiterSettings;
import dev.tollgate.limiter.after.CountAfter;
import dev.tollgate.limiter.Outcome;
import dev.tollgate.limiter.breaker.FallbackBuckets;
import dev.tollgate.limiter.breaker.ShardBreakers;
import dev.tollgate.limiter.hotkeys.HotKeys;
import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.limiter.rules.RuleBook;
import dev.tollgate.limiter.usage.UsageSink;
import dev.tollgate.store.CounterStore;
import io.micrometer.core.instrument.Timer;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * A check as a one-way pipeline of values, the engine behind {@link dev.tollgate.limiter.Limiter}: the request is
 * validated and its entries grouped by key (one atomic script per group); each group is answered by the first
 * stage that can: a count-after group by the pod's flags and counts ({@link AfterStage}), the pod's own answers
 * ({@link LocalStage}), else the store behind the shard's breaker, or the rule's fail mode when the store fails or
 * the check's deadline passes ({@link StoreStage}); {@link Verdicts} alone turns the groups' answers into the
 * {@link Outcome}. No stage throws for an expected end and every future is bounded by the deadline, so every check
 * completes with an outcome.
 */
public final class CheckPipeline {

    private final RuleBook rules;
    private final CheckRequestValidator validator;
    private final LimiterMetrics metrics;
    private final LongSupplier nanoTime;
    private final long deadlineNanos;
    private final ShardBreakers breakers;
    private final LocalStage local;
    private final CountAfter countAfter;
    private final AfterStage after;
    private final StoreStage store;
    private final Verdicts verdicts;
    private final Priming priming;
    private final Explainer explainer;
    private final HotKeys hotKeys;
    /** Lease calls in flight, by lease set: completed (never exceptionally) when the call is answered. */
    private final Map<String, CompletableFuture<Void>> leaseCalls = new ConcurrentHashMap<>();

    public CheckPipeline(RuleBook rules, CounterStore counters, LimiterSettings settings, LimiterMetrics metrics, Clock clock,
                         LongSupplier nanoTime, IntSupplier livePods, String podId, UsageSink usage) {
        this.rules = rules;
        this.metrics = metrics;
        this.nanoTime = nanoTime;
        this.validator = new CheckRequestValidator(settings.maxEntries());
        this.deadlineNanos = settings.deadline().toNanos();
        this.breakers = new ShardBreakers(settings.breaker(), clock, metrics.registry());
        FallbackBuckets fallback = new FallbackBuckets(nanoTime);
        FailModes failModes = new FailModes(fallback, livePods, metrics);
        this.local = new LocalStage(settings.optimizations(), nanoTime, metrics, podId);
        this.hotKeys = new HotKeys(nanoTime);
        this.store = new StoreStage(new ShardCall(counters, breakers, local, metrics, clock, livePods, hotKeys), local, failModes, metrics,
                nanoTime);
        this.countAfter = new CountAfter(counters, settings.countAfter(), nanoTime, clock, metrics, true);
        this.after = new AfterStage(countAfter, failModes, metrics);
        this.verdicts = new Verdicts(local, after, failModes, counters, metrics, usage);
        this.priming = new Priming(counters, breakers, settings, metrics, clock, nanoTime, livePods, podId);
        this.explainer = new Explainer(rules, validator, after, local, breakers, fallback, counters, clock, livePods);
    }

    /** The longest {@link #prepare()} waits. */
    public static Duration prepareWait() {
        return Priming.WAIT;
    }

    /** See {@link dev.tollgate.limiter.Limiter#prepare()}. */
    public void prepare() {
        priming.run();
    }

    public boolean prepared() {
        return priming.done();
    }

    public ShardBreakers breakers() {
        return breakers;
    }

    public HotKeys hotKeys() {
        return hotKeys;
    }

    /** Stops the count-after flushes; see {@link dev.tollgate.limiter.Limiter#close()}. */
    public void close() {
        countAfter.close();
    }

    /** The check's outcome, always completed within the configured deadline and never exceptionally. */
    public CompletableFuture<Outcome> check(CheckRequest request) {
        List<CheckProblem> problems = validator.problems(request);
        if (!problems.isEmpty()) {
            return CompletableFuture.completedFuture(new Outcome.Invalid(problems));
        }
        RuleBook view = rules.view();
        if (!view.loaded()) {
            return CompletableFuture.completedFuture(Outcome.NoRules.INSTANCE);
        }
        if (request.byAttributes()) {
            ByAttributes found = ByAttributes.of(request, view);
            if (!found.problems().isEmpty()) {
                return CompletableFuture.completedFuture(new Outcome.Invalid(found.problems()));
            }
            if (found.request().entries().isEmpty()) {
                // no rule applies: an allow with no entries says so
                metrics.noRuleMatched();
                return CompletableFuture.completedFuture(new Outcome.Answered(CheckResponse.of(List.of())));
            }
            return checkEntries(found.request(), view);
        }
        return checkEntries(request, view);
    }

    /** See {@link dev.tollgate.limiter.Limiter#explain}. */
    public CompletableFuture<Explanation> explain(CheckRequest request) {
        return explainer.explain(request);
    }

    private CompletableFuture<Outcome> checkEntries(CheckRequest request, RuleBook view) {
        Grouping grouping = Grouping.of(request.domain(), request.entries(), view, metrics);
        if (!grouping.problems().isEmpty()) {
            return CompletableFuture.completedFuture(new Outcome.Invalid(grouping.problems()));
        }
        Timer.Sample sample = metrics.startCheck();
        long deadline = nanoTime.getAsLong() + deadlineNanos;
        List<KeyGroup> groups = grouping.groups();
        if (groups.size() == 1) {
            // the common check (one key): no fan-in to build
            return answer(groups.get(0), deadline)
                    .thenApply(answer -> verdicts.write(sample, request.entries(), grouping, new GroupAnswer[] {answer}));
        }
        @SuppressWarnings("unchecked")
        CompletableFuture<GroupAnswer>[] answers = new CompletableFuture[groups.size()];
        for (int i = 0; i < answers.length; i++) {
            answers[i] = answer(groups.get(i), deadline);
        }
        return CompletableFuture.allOf(answers).thenApply(done -> {
            GroupAnswer[] answered = new GroupAnswer[answers.length];
            for (int i = 0; i < answered.length; i++) {
                answered[i] = answers[i].join();
            }
            return verdicts.write(sample, request.entries(), grouping, answered);
        });
    }

    /**
     * The group's answer: from the pod when it can (count-after groups first, which never reach the store stage
     * unless the pod hands them on), else from the store; one lease call per set at a time.
     */
    private CompletableFuture<GroupAnswer> answer(KeyGroup group, long deadline) {
        Optional<GroupAnswer> counted = after.answer(group);
        if (counted.isPresent()) {
            return CompletableFuture.completedFuture(counted.get());
        }
        Optional<GroupAnswer> answered = local.answer(group);
        if (answered.isPresent()) {
            return CompletableFuture.completedFuture(answered.get());
        }
        Optional<String> leaseSet = local.leaseSet(group);
        if (leaseSet.isEmpty()) {
            return store.answer(group, deadline);
        }
        // checks that arrive while the set's lease call is out wait for its grant instead of each asking for
        // a lease of their own (which would strand the grants they replace)
        CompletableFuture<Void> mine = new CompletableFuture<>();
        CompletableFuture<Void> pending = leaseCalls.putIfAbsent(leaseSet.get(), mine);
        if (pending != null) {
            // this check already passed the deny cache and its local bucket: only the lease is left to try
            return pending.thenCompose(granted -> local.fromLease(group)
                    .map(CompletableFuture::completedFuture)
                    .orElseGet(() -> store.answer(group, deadline)));
        }
        CompletableFuture<GroupAnswer> asked = store.answer(group, deadline);
        asked.whenComplete((done, error) -> {
            leaseCalls.remove(leaseSet.get(), mine);
            mine.complete(null);
        });
        return asked;
    }
}
