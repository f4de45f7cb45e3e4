package dev.tollgate.bench.peer;

import dev.tollgate.bench.load.Answer;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;

/**
 * The plain fixed window everyone writes first: INCR a counter named for the current second (the
 * client's clock), EXPIRE it when the INCR created it, admit while the count is within the limit. Two
 * commands, not one script: a client that dies between them leaves a key without a TTL, the trap the
 * design points out; the bench only measures its cost and its admissions.
 */
public final class FixedWindowPeer implements Peer {

    private static final int WINDOW_TTL_S = 2;

    private final RedisAdvancedClusterAsyncCommands<String, String> redis;
    private final long limit;
    private final LongAdder calls = new LongAdder();

    public FixedWindowPeer(RedisAdvancedClusterAsyncCommands<String, String> redis, long limitPerSecond) {
        this.redis = redis;
        this.limit = limitPerSecond;
    }

    @Override
    public String name() {
        return "fixed window INCR+EXPIRE";
    }

    @Override
    public CompletableFuture<Answer> acquire(String key) {
        String window = "fw:{" + key + "}:" + (System.currentTimeMillis() / 1000);
        calls.increment();
        return redis.incr(window).toCompletableFuture().thenCompose(count -> {
            Answer answer = count <= limit ? Answer.ALLOWED : Answer.DENIED;
            if (count != 1L) {
                return CompletableFuture.completedFuture(answer);
            }
            calls.increment();
            return redis.expire(window, WINDOW_TTL_S).toCompletableFuture().thenApply(set -> answer);
        });
    }

    @Override
    public long storeCalls() {
        return calls.sum();
    }
}
