package dev.tollgate.limiter.algorithm;

import dev.tollgate.limiter.key.RedisKeys;
import dev.tollgate.limiter.store.LuaScript;

import java.util.ArrayList;
import java.util.List;

/**
 * Builds calls to {@code fixed_window.lua}. The window's counter is a key of its own, named after the
 * window's UTC start ({@code q:{acct_7Q2}:free-daily:2026-09-30}), so the caller has to name it: it uses
 * its own clock, and the script checks that name against the store's TIME. On a mismatch (a pod whose
 * clock is a little off, around midnight) the script answers {@link #WRONG_WINDOW} with its own time,
 * and the call is rebuilt from that: the store's clock always decides which window is counted.
 */
public final class FixedWindows {

    /** The script's first reply value when the caller named another window than the store's clock is in. */
    public static final long WRONG_WINDOW = -1;

    private FixedWindows() {
    }

    public static ScriptCall call(String key, List<Spend> spends, long nowMs) {
        List<String> keys = new ArrayList<>(spends.size());
        List<String> args = new ArrayList<>(4 * spends.size());
        for (Spend spend : spends) {
            long window = spend.windowMs();
            long start = RedisKeys.windowStart(nowMs, window);
            keys.add(RedisKeys.window(key, spend.rule().id(), RedisKeys.windowName(start, window)));
            args.add(Long.toString(spend.limit()));
            args.add(Long.toString(window));
            args.add(Integer.toString(spend.cost()));
            args.add(Long.toString(start));
        }
        return new ScriptCall(LuaScript.FIXED_WINDOW, keys, args);
    }
}
