package dev.tollgate.store.key;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * Names every Redis key Tollgate writes. A caller's key is user data (a login name may hold
 * {@code {}, {@code :} or {@code _}), so it is percent-encoded before it goes between the braces of the
 * hash tag: the encoding never produces {@code {}, {@code }} or {@code :}, so the tag is exactly the
 * encoded key (it alone picks the slot, and all of an account's limits share it), and because
 * percent-encoding is reversible two distinct keys never share a name. Plain account ids such as
 * {@code acct_7Q2} encode to themselves, so keys stay readable for support.
 */
public final class RedisKeys {

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();
    private static final long DAY_MS = 86_400_000L;
    private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("yyyy-MM-dd").withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter INSTANT = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss'Z'").withZone(ZoneOffset.UTC);

    private RedisKeys() {
    }

    /** {@code rl:{<key>}:<rule>}: a token bucket, a hash. */
    public static String limit(String key, String ruleId) {
        return "rl:{" + encode(key) + "}:" + ruleId;
    }

    /**
     * {@code rl:{<key>}:<rule>:log}: a sliding log, a sorted set. Named apart from a bucket of the same
     * rule so that switching a rule's algorithm never meets a key of the other type (WRONGTYPE on every
     * call until the old key expires, days for a per-day bucket). A rule id holds no ':', so no bucket
     * can be named like a log.
     */
    public static String log(String key, String ruleId) {
        return limit(key, ruleId) + ":log";
    }

    /** {@code q:{<key>}:<rule>:<window>}: one fixed window's counter, e.g. {@code q:{acct_7Q2}:free-daily:2026-09-30}. */
    public static String window(String key, String ruleId, String windowName) {
        return "q:{" + encode(key) + "}:" + ruleId + ":" + windowName;
    }

    /** The start of the fixed window of {@code windowMs} that holds {@code nowMs}: windows are aligned to the epoch (UTC). */
    public static long windowStart(long nowMs, long windowMs) {
        return nowMs - Math.floorMod(nowMs, windowMs);
    }

    /** A day-aligned window is named by its date; a shorter one by its start instant. */
    public static String windowName(long startMs, long windowMs) {
        Instant start = Instant.ofEpochMilli(startMs);
        return windowMs % DAY_MS == 0 ? DAY.format(start) : INSTANT.format(start);
    }

    /** {@code tg:{pods}:<region>}: the region's live pods, one small sorted set on one slot (written by {@code pod_heartbeat.lua}). */
    public static String podRegistry(String region) {
        return "tg:{pods}:" + region;
    }

    /**
     * {@code tg:{pods}:<region>:hot:<pod>}: one pod's latest top of hot keys and slots (written by
     * {@code hot_keys_publish.lua}), on the registry's slot so that a reader gets every pod's with one MGET.
     */
    public static String podHotKeys(String region, String podId) {
        return podRegistry(region) + ":hot:" + podId;
    }

    /**
     * {@code tg:{<key>}:flush:<call id>}: the marker of one count-after flush call that has run, in the slot of the
     * call's routing key (its first entry's), so that a resent call counts nothing (written by {@code count_after.lua}).
     */
    public static String flushMarker(String key, String callId) {
        return "tg:{" + encode(key) + "}:flush:" + callId;
    }

    /** The hash tag of a key: what Redis Cluster hashes to choose its slot. */
    public static String hashTag(String key) {
        return encode(key);
    }

    /** The Redis Cluster slot every key of this limit key lives in (the CRC16 of its hash tag). */
    public static int slot(String key) {
        return io.lettuce.core.cluster.SlotHash.getSlot(encode(key));
    }

    static String encode(String key) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        StringBuilder out = null;
        for (int i = 0; i < bytes.length; i++) {
            int b = bytes[i] & 0xFF;
            if (isKept(b)) {
                if (out != null) {
                    out.append((char) b);
                }
            } else {
                if (out == null) {
                    out = new StringBuilder(bytes.length + 16);
                    for (int j = 0; j < i; j++) {
                        out.append((char) bytes[j]);
                    }
                }
                out.append('%').append(HEX[b >> 4]).append(HEX[b & 0xF]);
            }
        }
        return out == null ? key : out.toString();
    }

    /** RFC 3986 unreserved characters and '@': readable, and none of them is special to Redis Cluster. */
    private static boolean isKept(int b) {
        return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9')
                || b == '-' || b == '.' || b == '_' || b == '~' || b == '@';
    }
}
