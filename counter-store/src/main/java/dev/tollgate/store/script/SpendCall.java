package dev.tollgate.store.script;

import dev.tollgate.store.key.RedisKeys;
import dev.tollgate.store.LuaScript;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Builds calls to {@code spend.lua}: every limit of one request on one key, whatever its algorithm, in
 * one atomic call, so a request denied by one of them spends from none.
 */
public final class SpendCall {

    private SpendCall() {
    }

    /**
     * A call whose leases are sized for the whole fleet: one lease never takes more than 1 / (2 × pods) of a bucket.
     *
     * @param want  requests to lease at once (1: an exact check); the script grants one at most when the
     *              call names a log or a window
     * @param pods  live pods in the region
     * @param nowMs the caller's clock, which names fixed windows (the script checks it against its own)
     */
    public static ScriptCall of(String key, List<Spend> spends, int want, int pods, long nowMs) {
        return build(key, spends, want, pods, Optional.empty(), nowMs);
    }

    /**
     * A call whose leases are sized for the pods that actually ask for the key: one lease never takes more than
     * 1 / (2 × askers) of a bucket, askers being the pods that asked within the asker's lease ttl (itself
     * included, never more than {@code pods}). The asker is recorded on each bucket by a lease ask (want > 1) only.
     */
    public static ScriptCall of(String key, List<Spend> spends, int want, int pods, LeaseAsker asker, long nowMs) {
        return build(key, spends, want, pods, Optional.of(asker), nowMs);
    }

    private static ScriptCall build(String key, List<Spend> spends, int want, int pods, Optional<LeaseAsker> asker, long nowMs) {
        List<String> keys = new ArrayList<>(spends.size());
        List<String> args = new ArrayList<>(4 + 5 * spends.size());
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
        // after every key's five, where a call without an asker (and peek, which reads these args) has nothing
        asker.ifPresent(pod -> {
            args.add(pod.podId());
            args.add(Long.toString(pod.ttlMs()));
        });
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
