package dev.tollgate.store.script;

import dev.tollgate.store.key.RedisKeys;
import dev.tollgate.store.LuaScript;

import java.util.ArrayList;
import java.util.List;

/**
 * Builds calls to {@code spend.lua}: every limit of one request on one key, whatever its algorithm, in
 * one atomic call, so a request denied by one of them spends from none.
 */
public final class SpendCall {

    private SpendCall() {
    }

    /**
     * @param want  requests to lease at once (1: an exact check); the script grants one at most when the
     *              call names a log or a window
     * @param pods  live pods in the region, so one lease never takes more than 1 / (2 × pods) of a bucket
     * @param nowMs the caller's clock, which names fixed windows (the script checks it against its own)
     */
    public static ScriptCall of(String key, List<Spend> spends, int want, int pods, long nowMs) {
        List<String> keys = new ArrayList<>(spends.size());
        List<String> args = new ArrayList<>(2 + 5 * spends.size());
        args.add(Integer.toString(Math.max(1, want)));
        args.add(Integer.toString(Math.max(1, pods)));
        for (Spend spend : spends) {
            String rule = spend.rule().id();
            switch (spend.rule().algorithm()) {
                case TOKEN_BUCKET -> {
                    keys.add(RedisKeys.limit(key, rule));
                    add(args, "bucket", spend.refillMilli(), spend.periodMs(), spend.burstMilli(), spend.cost());
                }
                case SLIDING_LOG -> {
                    keys.add(RedisKeys.log(key, rule));
                    add(args, "log", spend.limit(), spend.windowMs(), spend.cost(), 0);
                }
                case FIXED_WINDOW -> {
                    keys.add(FixedWindows.key(key, rule, spend.windowMs(), nowMs));
                    add(args, "window", spend.limit(), spend.windowMs(), spend.cost(), FixedWindows.start(nowMs, spend.windowMs()));
                }
            }
        }
        return new ScriptCall(LuaScript.SPEND, keys, args);
    }

    private static void add(List<String> args, String kind, long a, long b, long c, long d) {
        args.add(kind);
        args.add(Long.toString(a));
        args.add(Long.toString(b));
        args.add(Long.toString(c));
        args.add(Long.toString(d));
    }
}
