package dev.tollgate.limiter.algorithm;

import dev.tollgate.limiter.key.RedisKeys;
import dev.tollgate.limiter.store.LuaScript;

import java.util.ArrayList;
import java.util.List;

/** Builds calls to {@code sliding_log.lua}. */
public final class SlidingLogs {

    private SlidingLogs() {
    }

    public static ScriptCall call(String key, List<Spend> spends) {
        List<String> keys = new ArrayList<>(spends.size());
        List<String> args = new ArrayList<>(3 * spends.size());
        for (Spend spend : spends) {
            keys.add(RedisKeys.log(key, spend.rule().id()));
            args.add(Long.toString(spend.limit()));
            args.add(Long.toString(spend.windowMs()));
            args.add(Integer.toString(spend.cost()));
        }
        return new ScriptCall(LuaScript.SLIDING_LOG, keys, args);
    }
}
