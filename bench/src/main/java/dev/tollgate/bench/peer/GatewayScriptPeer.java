package dev.tollgate.bench.peer;

import dev.tollgate.bench.load.Answer;
import dev.tollgate.store.CounterStore;
import dev.tollgate.store.LuaScript;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;

/**
 * Spring Cloud Gateway's RedisRateLimiter, as its script behaves: one EVALSHA per request on two keys
 * that share the caller's hash tag, time from Redis TIME in whole seconds (the gateway passes an empty
 * "now"), and a store error answered as allowed (the gateway's own choice). The script is our own
 * re-implementation of those semantics, run through the same Lettuce client as Tollgate's scripts so
 * that only the script differs.
 */
public final class GatewayScriptPeer implements Peer {

    static final LuaScript SCRIPT = LuaScript.load("peer_gateway_request_rate_limiter");

    private final CounterStore store;
    private final List<String> args;
    private final LongAdder calls = new LongAdder();

    public GatewayScriptPeer(CounterStore store, int replenishRate, int burstCapacity) {
        this.store = store;
        this.args = List.of(Integer.toString(replenishRate), Integer.toString(burstCapacity), "", "1");
    }

    @Override
    public String name() {
        return "Spring Cloud Gateway script";
    }

    @Override
    public CompletableFuture<Answer> acquire(String key) {
        String prefix = "request_rate_limiter.{" + key + "}.";
        calls.increment();
        return store.run(SCRIPT, List.of(prefix + "tokens", prefix + "timestamp"), args)
                .handle((reply, error) -> {
                    if (error != null) {
                        return Answer.FALLBACK_ALLOWED;
                    }
                    return reply.get(0) == 1L ? Answer.ALLOWED : Answer.DENIED;
                });
    }

    @Override
    public long storeCalls() {
        return calls.sum();
    }
}
