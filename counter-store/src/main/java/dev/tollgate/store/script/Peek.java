package dev.tollgate.store.script;

import dev.tollgate.store.BucketLevel;
import dev.tollgate.store.LuaScript;

import java.util.ArrayList;
import java.util.List;

/**
 * How a key group's limits stand in the store, read by {@code peek.lua} without writing anything: the
 * call a spend of the same group would make, under the read-only script, and its reply as levels computed
 * as {@code spend.lua} would compute them at the store's clock (a bucket through {@link BucketLevel}).
 */
public final class Peek {

    public static final LuaScript PEEK = LuaScript.load("peek");

    /**
     * One limit as the store holds it.
     *
     * @param redisKey  the key that holds it
     * @param remaining what is left now: whole tokens, or events or counts still admitted in the window
     * @param limit     what the limit holds when full (the region's share of it)
     * @param resetMs   ms until it is full again
     * @param stored    whether the store holds the key at all (a bucket never spent is full, a log empty)
     */
    public record Level(String redisKey, long remaining, long limit, long resetMs, boolean stored) {
    }

    private Peek() {
    }

    /** The read of the group that {@link SpendCall#of} would spend, with {@code nowMs} naming fixed windows. */
    public static ScriptCall of(String key, List<Spend> spends, long nowMs) {
        ScriptCall spend = SpendCall.of(key, spends, 1, 1, nowMs);
        return new ScriptCall(PEEK, spend.keys(), spend.args());
    }

    /** The reply of {@link #of}'s call, one level per spend, in the spends' order. */
    public static List<Level> levels(ScriptCall call, List<Spend> spends, List<Long> reply) {
        if (reply.size() != 1 + 3 * spends.size()) {
            throw new IllegalStateException("peek replied " + reply.size() + " values for " + spends.size() + " keys");
        }
        long now = reply.get(0);
        List<Level> levels = new ArrayList<>(spends.size());
        for (int i = 0; i < spends.size(); i++) {
            Spend spend = spends.get(i);
            long a = reply.get(1 + 3 * i);
            long b = reply.get(2 + 3 * i);
            long c = reply.get(3 + 3 * i);
            String redisKey = call.keys().get(i);
            levels.add(switch (spend.rule().algorithm()) {
                case TOKEN_BUCKET -> {
                    // stored: the third value, as a count-after debt is a negative level
                    boolean stored = c == 1;
                    BucketLevel level = BucketLevel.at(now, stored ? a : null, stored ? b : null, spend.refillMilli(),
                            spend.periodMs(), spend.burstMilli());
                    long toFill = BucketLevel.ceilDiv((spend.burstMilli() - level.milli()) * spend.periodMs(), spend.refillMilli());
                    yield new Level(redisKey, level.milli() / 1000, spend.burstMilli() / 1000,
                            Math.max(0, level.tsMs() + toFill - now), stored);
                }
                case SLIDING_LOG -> new Level(redisKey, Math.max(0, spend.limit() - a), spend.limit(),
                        a > 0 && b >= 0 ? Math.max(0, b + spend.windowMs() - now) : 0, a > 0);
                // a window the store's clock has left is over: the next one starts empty
                case FIXED_WINDOW -> c == 1
                        ? new Level(redisKey, Math.max(0, spend.limit() - a), spend.limit(), Math.max(0, b + spend.windowMs() - now), a > 0)
                        : new Level(redisKey, spend.limit(), spend.limit(), spend.windowMs() - Math.floorMod(now, spend.windowMs()), false);
            });
        }
        return levels;
    }
}
