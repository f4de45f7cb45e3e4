package dev.tollgate.limiter.algorithm;

import dev.tollgate.limiter.key.RedisKeys;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
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

    private static final long DAY_MS = 86_400_000L;
    private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("yyyy-MM-dd").withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter INSTANT = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss'Z'").withZone(ZoneOffset.UTC);

    private FixedWindows() {
    }

    /**
     * The store's clock (ms) when {@code reply} says the call named another window than the store is in,
     * so the caller can rename from it; empty when the call was answered.
     */
    public static OptionalLong movedTo(List<Long> reply) {
        return reply.get(0) == WRONG_WINDOW ? OptionalLong.of(reply.get(1)) : OptionalLong.empty();
    }

    /** The counter of the window {@code nowMs} falls in, for {@code rule} on {@code key}. */
    public static String key(String key, String rule, long windowMs, long nowMs) {
        long start = start(nowMs, windowMs);
        return RedisKeys.window(key, rule, windowName(start, windowMs));
    }

    /** The start of the window {@code nowMs} falls in: windows start at multiples of their length since the epoch. */
    static long start(long nowMs, long windowMs) {
        return nowMs - Math.floorMod(nowMs, windowMs);
    }

    /** A day-aligned window is named by its date; a shorter one by its start instant. */
    static String windowName(long startMs, long windowMs) {
        Instant start = Instant.ofEpochMilli(startMs);
        return windowMs % DAY_MS == 0 ? DAY.format(start) : INSTANT.format(start);
    }
}
