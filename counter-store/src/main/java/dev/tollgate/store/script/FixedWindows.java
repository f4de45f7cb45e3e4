package dev.tollgate.store.script;

import dev.tollgate.store.IntegerReply;
import dev.tollgate.store.key.RedisKeys;

import java.util.List;
import java.util.OptionalLong;

/**
 * How fixed windows are named. A window's counter is a key of its own, named after the window's UTC start
 * ({@code q:{acct_7Q2}:free-daily:2026-09-30}), so the caller has to name it: it uses its own clock, and
 * {@code spend.lua} checks that name against the store's TIME. On a mismatch (a pod whose clock is a
 * little off, around midnight) the script answers {@link #WRONG_WINDOW} with its own time, and the call
 * is rebuilt from that: the store's clock always decides which window is counted.
 */
public final class FixedWindows {

    /** The script's first reply value when the caller named another window than the store's clock is in. */
    public static final long WRONG_WINDOW = -1;

    private FixedWindows() {
    }

    /**
     * The store's clock (ms) when {@code reply} says the call named another window than the store is in,
     * so the caller can rename from it; empty when the call was answered.
     */
    public static OptionalLong movedTo(List<Long> reply) {
        return IntegerReply.at(reply, 0) == WRONG_WINDOW ? OptionalLong.of(IntegerReply.at(reply, 1)) : OptionalLong.empty();
    }

    /** The counter of the window {@code nowMs} falls in, for {@code rule} on {@code key}. */
    public static String key(String key, String rule, long windowMs, long nowMs) {
        return RedisKeys.window(key, rule, RedisKeys.windowName(start(nowMs, windowMs), windowMs));
    }

    /** The start of the window {@code nowMs} falls in (the layout's, {@link RedisKeys#windowStart}). */
    static long start(long nowMs, long windowMs) {
        return RedisKeys.windowStart(nowMs, windowMs);
    }
}
