package dev.tollgate.limiter.check;

import dev.tollgate.limiter.breaker.ShardBreakers;
import dev.tollgate.limiter.hotkeys.HotKeys;
import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.store.CounterStore;
import dev.tollgate.store.StoreException;
import dev.tollgate.store.key.RedisKeys;
import dev.tollgate.store.script.FixedWindows;
import dev.tollgate.store.script.GroupReply;
import dev.tollgate.store.script.ScriptCall;
import dev.tollgate.store.script.SpendCall;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;

import java.time.Clock;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/**
 * One key group's script call on its shard, behind the shard's breaker (the Resilience4j decorator, on the
 * engine's clock), with what the pod learns from it. Not bounded by the check's deadline: {@link StoreStage}
 * does that, so this call's own bookkeeping (the breaker's count, a late lease grant, the deny cache) runs
 * whenever the store answers, even after the deadline answered the check.
 */
final class ShardCall {

    private static final StoreException BREAKER_OPEN =
            new StoreException(StoreException.Kind.UNAVAILABLE, "breaker_open", "the shard's breaker is open", null);

    private final CounterStore store;
    private final ShardBreakers breakers;
    private final LocalStage local;
    private final LimiterMetrics metrics;
    private final Clock clock;
    private final IntSupplier livePods;
    private final HotKeys hotKeys;

    ShardCall(CounterStore store, ShardBreakers breakers, LocalStage local, LimiterMetrics metrics, Clock clock,
              IntSupplier livePods, HotKeys hotKeys) {
        this.store = store;
        this.breakers = breakers;
        this.local = local;
        this.metrics = metrics;
        this.clock = clock;
        this.livePods = livePods;
        this.hotKeys = hotKeys;
    }

    /** The group's spend in the store, learned from; never completes exceptionally. */
    CompletableFuture<StoreResult> spend(KeyGroup group) {
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
