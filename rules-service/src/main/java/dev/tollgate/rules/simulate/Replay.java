package dev.tollgate.rules.simulate;

import dev.tollgate.common.rule.Limit;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.store.BucketLevel;
import dev.tollgate.store.key.RedisKeys;
import dev.tollgate.store.key.UsageKeys;
import dev.tollgate.store.script.Spend;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * One key's recorded checks, window by window, replayed through a rule as the store would have answered them: a
 * bucket refilled by {@link BucketLevel} (the one Java copy of {@code spend.lua}'s refill), a log trimmed and a
 * window counted as the script does, the rule scaled to the region's share by {@link Spend}, as the engine scales it.
 *
 * <p><b>The assumption.</b> The pods record how much was checked in each 10 s window, not when: the replay spreads a
 * window's checks evenly over it (check i of n at {@code (i + 1/2) × 10 s / n}), each of cost 1 (a rule whose
 * requests cost more is replayed per unit), starting from a full bucket, an empty log and an empty window.
 *
 * <p><b>The error.</b> Moving a window's checks inside it changes what a token bucket admits in that window by at
 * most what it refills in one window (every admission past the level at the window's start is paid by refill) and
 * the bucket's later admissions by no more than the level it is left with differs, which is bounded the same way; so
 * over a key's windows the answer is off by at most {@code min(checks, refill per window + 1)} per window (the 1 for
 * whole tokens), counted for every window up to the last one where any order could deny, plus one burst for the
 * unknown level at the span's start. A window is beyond denial when the key's checks over it and the windows before
 * it that the bucket takes to fill sum to at most its burst. A fixed window aligned on the 10 s windows admits the
 * first {@code limit} of its checks whatever their order: it is exact but for its first window. A sliding log, and a
 * fixed window not aligned on them, are bounded by their limit per window (the most any order can move in one).
 */
final class Replay {

    /** Checks of one window above which arrivals sharing a millisecond are replayed together (they see one refill). */
    private static final int PER_ARRIVAL_UP_TO = 10_000;
    private static final long WINDOW_MS = UsageKeys.WINDOW_SECONDS * 1000L;

    /** What the rule denies of one key's checks, per window, and the most the assumption can be off by. */
    record Result(long[] denied, long total, long errorBound) {
    }

    private final Rule rule;
    private final double share;

    Replay(Rule rule, double share) {
        this.rule = rule;
        this.share = share;
    }

    /** @param checks cost checked per window, the first starting at {@code firstWindow} (epoch s) */
    Result run(long firstWindow, long[] checks) {
        Counter counter = counter();
        long[] denied = new long[checks.length];
        long total = 0;
        for (int w = 0; w < checks.length; w++) {
            long start = (firstWindow + (long) w * UsageKeys.WINDOW_SECONDS) * 1000L;
            denied[w] = replayWindow(counter, start, checks[w]);
            total += denied[w];
        }
        return new Result(denied, total, errorBound(checks));
    }

    private static long replayWindow(Counter counter, long startMs, long n) {
        long denied = 0;
        if (n <= PER_ARRIVAL_UP_TO) {
            for (long i = 0; i < n; i++) {
                denied += 1 - counter.admit(startMs + Math.floorDiv((2 * i + 1) * WINDOW_MS, 2 * n), 1);
            }
            return denied;
        }
        // check i falls in millisecond floor((2i + 1) × W / 2n): count those of each millisecond
        long before = 0;
        for (long ms = 0; ms < WINDOW_MS; ms++) {
            long upTo = Math.min(n, Math.max(0, BucketLevel.ceilDiv(2 * n * (ms + 1) - WINDOW_MS, 2 * WINDOW_MS)));
            long here = upTo - before;
            if (here > 0) {
                denied += here - counter.admit(startMs + ms, here);
            }
            before = upTo;
        }
        return denied;
    }

    /** A rule's counter for one key, fed arrivals in time order. */
    private interface Counter {
        /** {@code count} checks of cost 1 at {@code nowMs}; answers how many are admitted. */
        long admit(long nowMs, long count);
    }

    private Counter counter() {
        Spend one = new Spend(rule, share, 1);
        if (rule.limit() instanceof Limit.TokenBucket) {
            long refill = one.refillMilli();
            long period = one.periodMs();
            long burst = one.burstMilli();
            return new Counter() {
                private Long milli;
                private Long ts;

                @Override
                public long admit(long nowMs, long count) {
                    BucketLevel level = BucketLevel.at(nowMs, milli, ts, refill, period, burst);
                    long admitted = Math.min(count, level.milli() / 1000);
                    milli = level.milli() - admitted * 1000;
                    ts = level.tsMs();
                    return admitted;
                }
            };
        }
        long limit = one.limit();
        long windowMs = one.windowMs();
        if (rule.limit() instanceof Limit.SlidingLog) {
            return new Counter() {
                private final ArrayDeque<Long> log = new ArrayDeque<>();

                @Override
                public long admit(long nowMs, long count) {
                    // the script's ZREMRANGEBYSCORE -inf (now - window)
                    while (!log.isEmpty() && log.peekFirst() <= nowMs - windowMs) {
                        log.pollFirst();
                    }
                    long admitted = Math.max(0, Math.min(count, limit - log.size()));
                    for (long i = 0; i < admitted; i++) {
                        log.addLast(nowMs);
                    }
                    return admitted;
                }
            };
        }
        return new Counter() {
            private final Map<Long, Long> counts = new HashMap<>();

            @Override
            public long admit(long nowMs, long count) {
                long window = RedisKeys.windowStart(nowMs, windowMs);
                if (counts.size() > 4) {
                    counts.keySet().removeIf(start -> start < window);
                }
                long used = counts.getOrDefault(window, 0L);
                long admitted = Math.max(0, Math.min(count, limit - used));
                counts.put(window, used + admitted);
                return admitted;
            }
        };
    }

    /** The most the even-spread assumption can be off by for this key, as the class comment derives it. */
    long errorBound(long[] checks) {
        Spend one = new Spend(rule, share, 1);
        long capacity;
        long perWindow;
        int memory;
        if (rule.limit() instanceof Limit.TokenBucket) {
            capacity = one.burstMilli() / 1000;
            perWindow = WINDOW_MS * one.refillMilli() / one.periodMs() / 1000 + 1;
            long fillMs = BucketLevel.ceilDiv(one.burstMilli() * one.periodMs(), one.refillMilli());
            memory = (int) Math.min(checks.length, BucketLevel.ceilDiv(fillMs, WINDOW_MS));
        } else {
            capacity = one.limit();
            boolean aligned = rule.limit() instanceof Limit.FixedWindow && one.windowMs() % WINDOW_MS == 0;
            perWindow = aligned ? 0 : one.limit() * (BucketLevel.ceilDiv(WINDOW_MS, one.windowMs()) + 1);
            memory = (int) Math.min(checks.length, BucketLevel.ceilDiv(one.windowMs(), WINDOW_MS));
        }
        int lastContested = -1;
        long trailing = 0;
        for (int w = 0; w < checks.length; w++) {
            trailing += checks[w];
            if (w - memory - 1 >= 0) {
                trailing -= checks[w - memory - 1];
            }
            if (trailing > capacity) {
                lastContested = w;
            }
        }
        if (lastContested < 0) {
            return 0;
        }
        long bound = capacity;
        for (int w = 0; w <= lastContested; w++) {
            bound += Math.min(checks[w], perWindow);
        }
        return bound;
    }
}
