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
import dev.tollgate.limiter.algorithm.TokenBuckets;
import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.limiter.rules.RuleBook;
import dev.tollgate.limiter.store.CounterStore;
import dev.tollgate.limiter.store.StoreException;
import io.micrometer.core.instrument.Timer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
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

    private final RuleBook rules;
    private final CounterStore store;
    private final LimiterMetrics metrics;
    private final CheckRequestValidator validator;
    private final FailModes failModes;
    private final LongSupplier clockMs;

    public Limiter(RuleBook rules, CounterStore store, LimiterSettings settings, LimiterMetrics metrics, LongSupplier clockMs) {
        this.rules = rules;
        this.store = store;
        this.metrics = metrics;
        this.validator = new CheckRequestValidator(settings.maxEntries());
        this.failModes = new FailModes(metrics);
        this.clockMs = clockMs;
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
        return call(group, callFor(group, clockMs.getAsLong()), true)
                .handle((reply, error) -> {
                    if (error != null) {
                        failModes.answer(group, asStoreException(error), results);
                    } else {
                        record(group, reply, results);
                    }
                    return null;
                });
    }

    private CompletableFuture<GroupReply> call(KeyGroup group, ScriptCall call, boolean mayRename) {
        long started = System.nanoTime();
        return store.run(call.script(), call.keys(), call.args()).handle((reply, error) -> {
            String outcome = error == null ? "ok" : asStoreException(error).kind().name().toLowerCase();
            metrics.storeCall(call.script().name(), outcome).record(System.nanoTime() - started, java.util.concurrent.TimeUnit.NANOSECONDS);
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

    private static ScriptCall callFor(KeyGroup group, long nowMs) {
        Algorithm algorithm = group.id().algorithm();
        return switch (algorithm) {
            case TOKEN_BUCKET -> TokenBuckets.call(group.key(), group.spends(), 1, 1);
            case SLIDING_LOG -> SlidingLogs.call(group.key(), group.spends());
            case FIXED_WINDOW -> FixedWindows.call(group.key(), group.spends(), nowMs);
        };
    }

    private void record(KeyGroup group, GroupReply reply, EntryResult[] results) {
        for (int i = 0; i < group.size(); i++) {
            String ruleId = group.rule(i).id();
            EntryResult result = reply.allowed()
                    ? EntryResult.allowed(ruleId, reply.remaining()[i], reply.resetMs()[i])
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
}
