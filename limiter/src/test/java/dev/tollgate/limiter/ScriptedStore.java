package dev.tollgate.limiter;

import dev.tollgate.store.CounterStore;
import dev.tollgate.store.LuaScript;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * A counter store whose every answer the test writes: a reply, a failure, a throw, or silence (a
 * future that never completes, as a frozen node's would without a client timeout). For unit tests of
 * the engine's own paths (deadlines, breakers, fail modes); the scripts themselves are tested only on a
 * real cluster.
 */
final class ScriptedStore implements CounterStore {

    /** One call as the engine made it. */
    record Call(LuaScript script, List<String> keys, List<String> args) {
    }

    private final Deque<Function<Call, CompletableFuture<List<Long>>>> answers = new ArrayDeque<>();
    private Function<Call, CompletableFuture<List<Long>>> otherwise = call -> new CompletableFuture<>();
    final List<Call> calls = new ArrayList<>();
    final List<CompletableFuture<List<Long>>> silent = new ArrayList<>();

    /** The next call gets this answer; calls past the queued ones get {@link #otherwise}. */
    synchronized ScriptedStore then(Function<Call, CompletableFuture<List<Long>>> answer) {
        answers.add(answer);
        return this;
    }

    synchronized ScriptedStore otherwise(Function<Call, CompletableFuture<List<Long>>> answer) {
        otherwise = answer;
        return this;
    }

    static Function<Call, CompletableFuture<List<Long>>> reply(Long... values) {
        return call -> CompletableFuture.completedFuture(List.of(values));
    }

    static Function<Call, CompletableFuture<List<Long>>> failure(RuntimeException error) {
        return call -> CompletableFuture.failedFuture(error);
    }

    static Function<Call, CompletableFuture<List<Long>>> throwing(RuntimeException error) {
        return call -> {
            throw error;
        };
    }

    @Override
    public synchronized CompletableFuture<List<Long>> run(LuaScript script, List<String> keys, List<String> args) {
        Call call = new Call(script, List.copyOf(keys), List.copyOf(args));
        calls.add(call);
        Function<Call, CompletableFuture<List<Long>>> answer = answers.isEmpty() ? otherwise : answers.poll();
        CompletableFuture<List<Long>> future = answer.apply(call);
        if (!future.isDone()) {
            silent.add(future);
        }
        return future;
    }

    @Override
    public String shardOf(String redisKey) {
        return "shard-1";
    }

    synchronized int callCount() {
        return calls.size();
    }

    synchronized Call lastCall() {
        return calls.get(calls.size() - 1);
    }
}
