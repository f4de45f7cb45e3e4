package dev.tollgate.limiter.algorithm;

import dev.tollgate.limiter.key.RedisKeys;
import dev.tollgate.limiter.store.LuaScript;

import java.util.ArrayList;
import java.util.List;

/** Builds calls to {@code token_bucket.lua}. */
public final class TokenBuckets {

    private TokenBuckets() {
    }

    /**
     * @param want requests to lease at once (1: an exact check)
     * @param pods live pods in the region, so one lease never takes more than 1 / (2 × pods) of a bucket
     */
    public static ScriptCall call(String key, List<Spend> spends, int want, int pods) {
        List<String> keys = new ArrayList<>(spends.size());
        List<String> args = new ArrayList<>(2 + 4 * spends.size());
        args.add(Integer.toString(Math.max(1, want)));
        args.add(Integer.toString(Math.max(1, pods)));
        for (Spend spend : spends) {
            keys.add(RedisKeys.limit(key, spend.rule().id()));
            args.add(Long.toString(spend.refillMilli()));
            args.add(Long.toString(spend.periodMs()));
            args.add(Long.toString(spend.burstMilli()));
            args.add(Integer.toString(spend.cost()));
        }
        return new ScriptCall(LuaScript.TOKEN_BUCKET, keys, args);
    }
}
