package dev.tollgate.limiter.check;

import dev.tollgate.common.check.CheckProblem;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.check.CheckRequestValidator;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.limiter.Explanation;
import dev.tollgate.limiter.breaker.FallbackBuckets;
import dev.tollgate.limiter.breaker.ShardBreakers;
import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.limiter.rules.RuleBook;
import dev.tollgate.store.CounterStore;
import dev.tollgate.store.key.RedisKeys;
import dev.tollgate.store.script.Peek;
import dev.tollgate.store.script.ScriptCall;
import dev.tollgate.store.script.Spend;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/**
 * A check's dry run: the request goes through the same validation, rule look-up and grouping as a check, then
 * each key group is told by the stage that would answer it, in the check's order (a count-after rule's own count,
 * the pod's own answers, the shard's breaker, the store), each asked without spending: the count-after and local
 * stages {@linkplain AfterStage#look look} ({@link LocalStage#look}),
 * the store is read by {@code peek.lua} (no writes), the fallback buckets are peeked. Nothing here counts a
 * metric, takes a lease, remembers a deny or counts in a breaker, so a look never changes what the next check
 * answers.
 */
final class Explainer {

    /** The longest a look waits for the store: a person asks, not a gateway, but a dead shard must not hang them. */
    private static final Duration READ_WAIT = Duration.ofSeconds(1);

    /** The store's counters for a group, or why they could not be read. */
    private record Read(Optional<List<Peek.Level>> levels, String failure) {
    }

    private final RuleBook rules;
    private final CheckRequestValidator validator;
    private final AfterStage after;
    private final LocalStage local;
    private final ShardBreakers breakers;
    private final FallbackBuckets fallback;
    private final CounterStore store;
    private final Clock clock;
    private final IntSupplier livePods;

    Explainer(RuleBook rules, CheckRequestValidator validator, AfterStage after, LocalStage local, ShardBreakers breakers,
              FallbackBuckets fallback, CounterStore store, Clock clock, IntSupplier livePods) {
        this.rules = rules;
        this.validator = validator;
        this.after = after;
        this.local = local;
        this.breakers = breakers;
        this.fallback = fallback;
        this.store = store;
        this.clock = clock;
        this.livePods = livePods;
    }

    /** Never completes exceptionally: a store that cannot be read is part of the explanation. */
    CompletableFuture<Explanation> explain(CheckRequest request) {
        List<CheckProblem> problems = validator.problems(request);
        if (!problems.isEmpty()) {
            return CompletableFuture.completedFuture(new Explanation.Invalid(problems));
        }
        RuleBook view = rules.view();
        if (!view.loaded()) {
            return CompletableFuture.completedFuture(Explanation.NoRules.INSTANCE);
        }
        CheckRequest checked = request;
        if (request.byAttributes()) {
            ByAttributes found = ByAttributes.of(request, view);
            if (!found.problems().isEmpty()) {
                return CompletableFuture.completedFuture(new Explanation.Invalid(found.problems()));
            }
            checked = found.request();
        }
        Grouping grouping = Grouping.of(checked.domain(), checked.entries(), view, LimiterMetrics.noop());
        if (!grouping.problems().isEmpty()) {
            return CompletableFuture.completedFuture(new Explanation.Invalid(grouping.problems()));
        }
        List<Explanation.Entry> unknown = new ArrayList<>();
        for (int i = 0; i < grouping.results().length; i++) {
            if (grouping.results()[i] != null) {
                var entry = checked.entries().get(i);
                unknown.add(new Explanation.Entry(i, entry.rule(), entry.key(), Optional.empty(), Optional.empty(), 1.0,
                        Optional.empty(), Optional.empty(), Explanation.Stage.UNKNOWN_RULE, true,
                        "domain " + checked.domain() + " has no rule " + entry.rule() + ": the entry is allowed, marked unknown_rule",
                        Optional.empty()));
            }
        }
        String domain = checked.domain();
        List<CompletableFuture<List<Explanation.Entry>>> groups = new ArrayList<>();
        for (KeyGroup group : grouping.groups()) {
            groups.add(explain(domain, view, group));
        }
        return CompletableFuture.allOf(groups.toArray(CompletableFuture[]::new)).thenApply(done -> {
            List<Explanation.Entry> entries = new ArrayList<>(unknown);
            boolean allowed = true;
            for (int g = 0; g < groups.size(); g++) {
                List<Explanation.Entry> explained = groups.get(g).join();
                entries.addAll(explained);
                if (!grouping.groups().get(g).shadow()) {
                    allowed &= explained.stream().allMatch(Explanation.Entry::allowed);
                }
            }
            entries.sort(Comparator.comparingInt(Explanation.Entry::index));
            return new Explanation.Explained(allowed, entries);
        });
    }

    private CompletableFuture<List<Explanation.Entry>> explain(String domain, RuleBook view, KeyGroup group) {
        Optional<String> shard;
        try {
            shard = Optional.of(store.shardOf(RedisKeys.hashTag(group.key())));
        } catch (RuntimeException e) {
            shard = Optional.empty();
        }
        // the pod's breaker as it stands, not made for this look: a shard no check has asked has a closed one
        CircuitBreaker.State state = shard.map(breakers.all()::get).map(CircuitBreaker::getState).orElse(CircuitBreaker.State.CLOSED);
        boolean open = state == CircuitBreaker.State.OPEN || state == CircuitBreaker.State.FORCED_OPEN;
        ScriptCall peek = Peek.of(group.key(), group.spends(), clock.millis());
        CompletableFuture<Read> read;
        if (shard.isEmpty()) {
            read = CompletableFuture.completedFuture(new Read(Optional.empty(), "the store is not connected"));
        } else if (open) {
            read = CompletableFuture.completedFuture(new Read(Optional.empty(), "the breaker of shard " + shard.get() + " is open"));
        } else {
            read = read(group, peek);
        }
        Optional<String> shardOf = shard;
        return read.thenApply(counters -> {
            Optional<LocalStage.Look> answered = after.look(group).or(() -> local.look(group));
            LocalStage.Look look = answered.orElseGet(() -> counters.levels().isPresent()
                    ? fromStore(group, counters.levels().get())
                    : fromFailMode(group, counters.failure()));
            List<Explanation.Entry> entries = new ArrayList<>();
            for (int i = 0; i < group.size(); i++) {
                Rule rule = group.rule(i);
                int at = i;
                Optional<Peek.Level> level = counters.levels().map(levels -> levels.get(at));
                String why = answered.isEmpty() && counters.levels().isPresent() ? whyFromStore(group, i, level.get()) : look.why();
                for (int index : group.entryIndexes(i)) {
                    entries.add(new Explanation.Entry(index, rule.id(), group.key(), Optional.of(rule),
                            view.override(domain, rule.id(), group.key()), group.share(i), Optional.of(peek.keys().get(i)), shardOf,
                            look.stage(), look.allowed(),
                            group.shadow() ? why + " (shadow: counted, never enforced)" : why, level));
                }
            }
            return entries;
        });
    }

    /** The group's counters under the no-writes script, bounded; a failure is an answer, not an error. */
    private CompletableFuture<Read> read(KeyGroup group, ScriptCall call) {
        try {
            return store.run(call.script(), call.keys(), call.args())
                    .orTimeout(READ_WAIT.toMillis(), TimeUnit.MILLISECONDS)
                    .handle((reply, error) -> error == null
                            ? new Read(Optional.of(Peek.levels(call, group.spends(), reply)), "")
                            : new Read(Optional.empty(), "the store did not answer a look (" + rootMessage(error) + ")"));
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(new Read(Optional.empty(), "the store could not be asked (" + rootMessage(e) + ")"));
        }
    }

    /** All or nothing, as the spend script: the group is admitted when every limit holds its cost (a look, one more request). */
    private static LocalStage.Look fromStore(KeyGroup group, List<Peek.Level> levels) {
        boolean allowed = true;
        for (int i = 0; i < group.size(); i++) {
            allowed &= levels.get(i).remaining() >= Math.max(1, group.cost(i));
        }
        return new LocalStage.Look(Explanation.Stage.STORE, allowed, "");
    }

    private static String whyFromStore(KeyGroup group, int i, Peek.Level level) {
        long need = Math.max(1, group.cost(i));
        String held = "the store's counter " + level.redisKey() + " holds " + level.remaining() + " of " + level.limit();
        return level.remaining() >= need
                ? held + ", enough for a request of cost " + need
                : held + ", short of a request of cost " + need + "; full again in " + level.resetMs() + " ms";
    }

    /** The shard cannot be read: the rule's fail mode answers, as {@code FailModes} would. */
    private LocalStage.Look fromFailMode(KeyGroup group, String failure) {
        if (!group.shadow()) {
            for (int i = 0; i < group.size(); i++) {
                if (group.rule(i).failsClosed()) {
                    return new LocalStage.Look(Explanation.Stage.FAIL_MODE, false,
                            failure + ": rule " + group.rule(i).id() + " fails closed, so the check is denied");
                }
            }
        }
        List<Spend> spends = group.spends();
        FallbackBuckets.Answer answer = fallback.peek(group.key(), spends, livePods.getAsInt());
        return new LocalStage.Look(Explanation.Stage.FAIL_MODE, answer.allowed(), failure
                + ": the rule fails open and the pod's fallback bucket (the limit ÷ pods × 2) "
                + (answer.allowed() ? "admits it" : "is empty, retry in " + answer.retryMs() + " ms"));
    }

    private static String rootMessage(Throwable error) {
        Throwable cause = error;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        return cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
    }
}
