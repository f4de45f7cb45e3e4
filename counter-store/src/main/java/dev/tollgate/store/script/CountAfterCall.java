package dev.tollgate.store.script;

import dev.tollgate.store.LuaScript;
import dev.tollgate.store.key.RedisKeys;

import java.util.ArrayList;
import java.util.List;

/**
 * Builds a call to {@code count_after.lua}: one pod's admitted counts for many keys of one shard, added in one
 * call, and reads which of those keys are now over. Only token buckets and fixed windows count after (the
 * validator refuses a sliding log). Each call has an id, and the store applies a call of one id once: a call that
 * failed or timed out is resent as it was built (the same {@link ScriptCall}), never rebuilt.
 */
public final class CountAfterCall {

    public static final LuaScript COUNT_AFTER = LuaScript.load("count_after");

    private CountAfterCall() {
    }

    /**
     * What one pod admitted for one rule on one key since its last flush.
     *
     * @param spend the rule as it applies to the key, its region share, and the cost of one request (what "over"
     *              is judged against: the key cannot pay for one more)
     * @param units tokens or counts admitted (requests × their costs); 0 only asks whether the key is over
     */
    public record Entry(String key, Spend spend, long units) {

        public Entry {
            if (units < 0) {
                throw new IllegalArgumentException("units must be at least 0, was " + units);
            }
        }

        /** The Redis key the count goes to: the very bucket or window the inline spend uses. */
        String redisKey(long nowMs) {
            return switch (spend.rule().algorithm()) {
                case TOKEN_BUCKET -> RedisKeys.limit(key, spend.rule().id());
                case FIXED_WINDOW -> FixedWindows.key(key, spend.rule().id(), spend.windowMs(), nowMs);
                case SLIDING_LOG -> throw new IllegalArgumentException("rule " + spend.rule().id()
                        + " is a sliding_log, which never counts after");
            };
        }
    }

    /**
     * The reply: the store's clock, whether the call had run before (a resend: it counted nothing and
     * answers its first run's verdicts), and for each entry over its index in the call and the ms until it is not.
     */
    public record Reply(long storeNowMs, boolean replayed, List<Over> over) {

        public record Over(int entry, long waitMs) {
        }

        public static Reply parse(List<Long> reply) {
            List<Over> over = new ArrayList<>((reply.size() - 2) / 2);
            for (int i = 2; i + 1 < reply.size(); i += 2) {
                over.add(new Over(Math.toIntExact(reply.get(i) - 1), reply.get(i + 1)));
            }
            return new Reply(reply.get(0), reply.get(1) == 1, List.copyOf(over));
        }
    }

    /**
     * @param nowMs        the pod's clock, which names fixed windows as the inline spend names them
     * @param callId       unique to this call among every pod's calls for as long as its marker lives ({@code [0-9a-z:-]})
     * @param markerTtlMs  how long the store remembers the call ran: longer than the pod may resend it
     */
    public static ScriptCall of(List<Entry> entries, long nowMs, String callId, long markerTtlMs) {
        if (entries.isEmpty()) {
            throw new IllegalArgumentException("a flush carries at least one entry (its first key routes the call)");
        }
        if (markerTtlMs < 1) {
            throw new IllegalArgumentException("a flush's marker must live at least 1 ms, was " + markerTtlMs);
        }
        List<String> args = new ArrayList<>(2 + 7 * entries.size());
        args.add(Integer.toString(entries.size()));
        args.add(Long.toString(markerTtlMs));
        String routing = null;
        for (Entry entry : entries) {
            Spend spend = entry.spend();
            String redisKey = entry.redisKey(nowMs);
            routing = routing == null ? redisKey : routing;
            long need = Math.max(1, spend.cost());
            switch (spend.rule().algorithm()) {
                case TOKEN_BUCKET -> add(args, "bucket", redisKey, spend.refillMilli(), spend.periodMs(), spend.burstMilli(), entry.units(), need);
                case FIXED_WINDOW -> add(args, "window", redisKey, spend.limit(), spend.windowMs(),
                        FixedWindows.start(nowMs, spend.windowMs()), entry.units(), need);
                case SLIDING_LOG -> throw new IllegalStateException("unreachable: redisKey refused it");
            }
        }
        return new ScriptCall(COUNT_AFTER, List.of(routing, RedisKeys.flushMarker(entries.get(0).key(), callId)), args);
    }

    private static void add(List<String> args, String kind, String key, long a, long b, long c, long units, long need) {
        args.add(kind);
        args.add(key);
        args.add(Long.toString(a));
        args.add(Long.toString(b));
        args.add(Long.toString(c));
        args.add(Long.toString(units));
        args.add(Long.toString(need));
    }
}
