package dev.tollgate.limiter.check;

import dev.tollgate.common.check.EntryResult;
import dev.tollgate.limiter.breaker.ShardBreakers;
import dev.tollgate.limiter.hotkeys.HotKeys;
import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.store.CounterStore;
import dev.tollgate.store.StoreException;
import dev.tollgate.store.key.RedisKeys;
import dev.tollgate.store.script.FixedWindows;
import dev.tollgate.store.script.GroupReply;
import dev.tollgate.store.script.ScriptCall;
import dev.tollgate.store.script.Spend;
import dev.tollgate.store.script.SpendCall;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;

import java.time.Clock;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * The check's second stage: one script call for a key group on its shard, behind the shard's breaker (the
 * Resilience4j decorator, on the engine's clock), bounded by the check's deadline; the store's reply becomes the
 * group's answer, and a failure the rule's fail mode. The call's own bookkeeping (the breaker's count, what the
 * pod learns, a late lease grant) runs whenever it ends, even after the deadline answered the check.
 */
final class StoreStage {

    private static final StoreException BREAKER_OPEN =
            new StoreException(StoreException.Kind.UNAVAILABLE, "breaker_open", "the shard's breaker is open", null);
    private static final StoreException DEADLINE =
            new StoreException(StoreException.Kind.TIMEOUT, "deadline", "the store did not answer within the check's deadline", null);
    private static final StoreResult.Failed PAST_DEADLINE = new StoreResult.Failed(DEADLINE);

    private final CounterStore store;
    private final ShardBreakers breakers;
    private final LocalStage local;
    private final FailModes failModes;
    private final LimiterMetrics metrics;
    private final Clock clock;
    private final LongSupplier nanoTime;
    private final IntSupplier livePods;
    private final HotKeys hotKeys;

    StoreStage(CounterStore store, ShardBreakers breakers, LocalStage local, FailModes failModes, LimiterMetrics metrics,
               Clock clock, LongSupplier nanoTime, IntSupplier livePods, HotKeys hotKeys) {
        this.store = store;
        this.breakers = breakers;
        this.local = local;
        this.failModes = failModes;
        this.metrics = metrics;
        this.clock = clock;
        this.nanoTime = nanoTime;
        this.livePods = livePods;
        this.hotKeys = hotKeys;
    }

    /** The group's answer from the store, else from the fail mode; never completes exceptionally. */
    CompletableFuture<GroupAnswer> answer(KeyGroup group, long deadline) {
        long left = deadline - nanoTime.getAsLong();
        if (left <= 0) {
            // a waiter released after its deadline (its lease call answered late): it gets the fail mode whatever
            // the store says now, so a spend made for it would only be lost
            return CompletableFuture.completedFuture(fallBack(group, PAST_DEADLINE));
        }
        return Deadlines.within(spend(group), left, PAST_DEADLINE).thenApply(result -> result instanceof StoreResult.Replied replied
                ? fromStore(group, replied)
                : fallBack(group, (StoreResult.Failed) result));
    }

    /** The script call behind the shard's breaker, with what the pod learns from it; never completes exceptionally. */
    private CompletableFuture<StoreResult> spend(KeyGroup group) {
        CircuitBreaker breaker;
        try {
            breaker = breakers.forShard(store.shardOf(RedisKeys.hashTag(group.key())));
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(new StoreResult.Failed(asStoreException(e)));
        }
        CompletionStage<StoreResult.Replied> called = breaker.decorateCompletionStage(() -> call(group)).get();
        return called.toCompletableFuture().handle((replied, error) -> {
            if (error == null) {
                local.learn(group, replied.reply());
                return replied;
            }
            StoreException failure = asStoreException(error);
            local.failed(group, failure);
            return new StoreResult.Failed(failure);
        });
    }

    /** The group's script, from our clock; renamed once from the store's when a fixed window's name differs. */
    private CompletableFuture<StoreResult.Replied> call(KeyGroup group) {
        // counted once the breaker lets the call go: what a primary is asked, not what a pod wanted to ask
        hotKeys.record(group.key());
        try {
            return call(callFor(group, clock.millis()), group, true);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(asStoreException(e));
        }
    }

    private CompletableFuture<StoreResult.Replied> call(ScriptCall call, KeyGroup group, boolean mayRename) {
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
                return CompletableFuture.completedFuture(new StoreResult.Replied(call, GroupReply.parse(reply, call.keys().size())));
            }
            if (!mayRename) {
                throw new StoreException(StoreException.Kind.UNAVAILABLE, "fixed window moved twice in one check", null);
            }
            // our clock named another window than the store's TIME: rename from the store's clock
            return call(callFor(group, storeClock.getAsLong()), group, false);
        });
    }

    private ScriptCall callFor(KeyGroup group, long nowMs) {
        return SpendCall.of(group.key(), group.spends(), local.want(group), livePods.getAsInt(), local.asker(), nowMs);
    }

    private GroupAnswer fromStore(KeyGroup group, StoreResult.Replied replied) {
        GroupReply reply = replied.reply();
        long leaseLeft = Math.max(0, reply.granted() - 1);
        List<Spend> spends = group.spends();
        if (!reply.allowed()) {
            // nothing was spent; each entry still says what its own limit would have answered (a look, cost 0,
            // asked about one more request)
            return GroupAnswer.of(group, i -> reply.remaining()[i] >= Math.max(1, spends.get(i).cost())
                    ? EntryResult.allowed(group.rule(i).id(), reply.remaining()[i], reply.resetMs()[i])
                    : EntryResult.denied(group.rule(i).id(), reply.remaining()[i], reply.resetMs()[i], reply.retryMs()));
        }
        return GroupAnswer.of(group, i -> EntryResult.allowed(group.rule(i).id(),
                        LocalStage.podView(reply.remaining()[i], leaseLeft, spends.get(i).cost()), reply.resetMs()[i]),
                new Spent.InStore(replied.call(), reply));
    }

    /** A failed store call's answer: the rule's fail mode; one past its deadline is counted as such. */
    private GroupAnswer fallBack(KeyGroup group, StoreResult.Failed failed) {
        if (failed == PAST_DEADLINE) {
            metrics.deadlineExceeded();
        }
        GroupAnswer answer = failModes.answer(group, failed.error());
        if (!(answer instanceof GroupAnswer.Checked checked && checked.admitted())) {
            // not admitted: the local-first bucket gets back what the request took from it
            local.refund(group);
        }
        return answer;
    }

    private static StoreException asStoreException(Throwable error) {
        Throwable cause = error;
        while (!(cause instanceof StoreException) && !(cause instanceof CallNotPermittedException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof StoreException store) {
            return store;
        }
        if (cause instanceof CallNotPermittedException) {
            // the shard is clearly gone: answered from the fail mode at once instead of paying its timeout
            return BREAKER_OPEN;
        }
        return new StoreException(StoreException.Kind.UNAVAILABLE, "store call failed: " + cause.getClass().getSimpleName(), null);
    }
}
