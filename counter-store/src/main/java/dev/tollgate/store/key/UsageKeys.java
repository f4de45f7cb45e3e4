package dev.tollgate.store.key;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Names the usage data that pods write and the budget rebalancer reads, so both sides share one
 * definition: per region, one Redis hash per usage window and shard, {@code u:{<shard>}:<window start>}
 * (e.g. {@code u:{17}:1727712000}), whose fields are {@code <rule>:<key>} and whose values are the cost
 * that all of the region's pods admitted for that rule and key in that window.
 *
 * <p>Why windows of 10 s rather than per-second buckets: the rebalancer wants "the last 10 s" once
 * every 10 s, so it reads exactly one closed window. With 240,000 active keys that is 240,000 fields
 * per region per cycle instead of 2.4 million, and Redis holds about three windows (~240,000 fields
 * each) instead of some sixteen per-second buckets.
 *
 * <p>Why shards: the hash of one window holds every active key of the region, so it is split
 * {@value #SHARDS} ways by a stable hash of the field. Each shard's hash tag spreads the windows over
 * the cluster's primaries, one read returns ~1,000 fields at 240,000 keys (a short command, never a
 * multi-millisecond stall for the checks on that primary), and the rebalancer finds every active key
 * by reading {@value #SHARDS} known names: no SCAN, and a key without traffic has no field at all.
 *
 * <p>The key in a field is the caller's key as is: a hash field may hold any bytes, and the rule id
 * before it never holds a ':'. The encoded form ({@link dev.tollgate.store.key.RedisKeys}) matters
 * only where a key becomes part of a Redis key name and its hash tag.
 */
public final class UsageKeys {

    /** The width of a usage window; windows start at multiples of it since the epoch. */
    public static final int WINDOW_SECONDS = 10;
    public static final Duration WINDOW = Duration.ofSeconds(WINDOW_SECONDS);
    /** Hashes per window. Changing it strands one window of data (writers and readers must agree). */
    public static final int SHARDS = 256;
    /**
     * How long a window's hash lives after its last write: long enough for a rebalancer that runs
     * late or fails over to still read the window before the one it missed.
     */
    public static final Duration RETENTION = Duration.ofSeconds(30);

    private UsageKeys() {
    }

    /** The start, in epoch seconds, of the window that holds {@code epochMillis}. */
    public static long windowStart(long epochMillis) {
        long second = Math.floorDiv(epochMillis, 1000);
        return second - Math.floorMod(second, WINDOW_SECONDS);
    }

    /**
     * The newest window that has closed by {@code epochMillis - lag}: the one to read. {@code lag}
     * covers the pods' flush interval and clock skew, so the window is complete when it is read.
     */
    public static long lastClosedWindow(long epochMillis, Duration lag) {
        return windowStart(epochMillis - lag.toMillis()) - WINDOW_SECONDS;
    }

    /** {@code <rule>:<key>}; null when the rule id holds a ':' (no valid rule does), which would make it ambiguous. */
    public static String field(String ruleId, String key) {
        if (ruleId.indexOf(':') >= 0) {
            return null;
        }
        return ruleId + ':' + key;
    }

    /** Which of the {@value #SHARDS} hashes holds a field; stable across JVMs (String.hashCode is specified). */
    public static int shardOf(String field) {
        // multiply to spread the bits (similar keys differ mostly in hashCode's low bits), then take
        // the top bits into [0, SHARDS) (Lemire's reduction: unbiased enough, no modulo)
        long mixed = (field.hashCode() * 0x9E3779B9) & 0xFFFFFFFFL;
        return (int) ((mixed * SHARDS) >>> 32);
    }

    /**
     * {@code sd:{<window start>}}: one hash per window whose fields are rule ids and whose values are the
     * cost the region's shadow rules would have denied in it. A few fields (one per shadow rule that
     * denied), so one hash; no budget reads it, so it never slows the rebalancer's shard reads.
     */
    public static String shadowDenies(long windowStart) {
        return "sd:{" + windowStart + "}";
    }

    /**
     * {@code vd:{<window start>}}: one hash per window whose fields ({@link #denialField}) are a rule's version and
     * whether it was in shadow, and whose values are the cost the region's pods denied (or, in shadow, would have)
     * by that version in it: how a rule's canary compares with the version the other pods enforce. A field per
     * rule version that denied, so one hash, as {@link #shadowDenies}.
     */
    public static String versionDenies(long windowStart) {
        return "vd:{" + windowStart + "}";
    }

    /** {@code <rule>:<version>:deny} or {@code <rule>:<version>:shadow_deny}; null for a rule id holding a ':' (no valid rule does). */
    public static String denialField(String ruleId, long version, boolean shadow) {
        if (ruleId.indexOf(':') >= 0) {
            return null;
        }
        return ruleId + ':' + version + (shadow ? ":shadow_deny" : ":deny");
    }

    /**
     * How long a rule's checks hash ({@link #checks}) lives after its last write: the longest span a simulation
     * replays (an hour), and the window being written.
     */
    public static final Duration CHECKS_RETENTION = Duration.ofHours(1).plus(WINDOW);
    /** The most sampling levels a rule's checks go down to: 2^-20 of its keys. */
    public static final int MAX_SAMPLING_LEVEL = 20;

    /**
     * {@code s:{<rule>}:<window start>}: one hash per rule and window holding what the region's pods checked for a
     * sample of the rule's keys, for replaying a proposed version of the rule (a simulation). Fields:
     * {@code c:<key>} cost checked, {@code d:<key>} cost the rule itself denied (a shadow rule: would have denied),
     * and {@code l:<level>} for each sampling level a pod wrote at (the value counts the pods' writes). A key is in
     * the sample at level n when {@link #sampled} says so, the same on every pod, so a sampled key's windows are
     * whole; a reader keeps the keys sampled at the highest level written in the span, 1 in 2^level of them.
     * One hash per rule (its id is the hash tag): a simulation reads one rule's windows, never the whole region's.
     */
    public static String checks(String ruleId, long windowStart) {
        return "s:{" + ruleId + "}:" + windowStart;
    }

    /** Whether {@code key} is in a rule's sample at {@code level} (1 in 2^level keys); every key at level 0. */
    public static boolean sampled(String key, int level) {
        if (level <= 0) {
            return true;
        }
        long mixed = (key.hashCode() * 0x9E3779B9) & 0xFFFFFFFFL;
        // the top bits: a sample at level n+1 is a subset of the one at n
        return (mixed >>> (32 - Math.min(level, 31))) == 0;
    }

    /** {@code u:{<shard>}:<window start>}. */
    public static String window(int shard, long windowStart) {
        return "u:{" + shard + "}:" + windowStart;
    }

    /** The hash that holds one rule and key's usage in a window: for reading a single key. */
    public static String windowOf(String ruleId, String key, long windowStart) {
        String field = field(ruleId, key);
        return field == null ? null : window(shardOf(field), windowStart);
    }

    /** Every hash of one window, in shard order. */
    public static List<String> windows(long windowStart) {
        List<String> names = new ArrayList<>(SHARDS);
        for (int shard = 0; shard < SHARDS; shard++) {
            names.add(window(shard, windowStart));
        }
        return names;
    }

    /** A field read back: the rule and the key it counts. */
    public record Field(String ruleId, String key) {

        /** Null when the text is not a field this class wrote (no ':', or an empty rule or key). */
        public static Field parse(String field) {
            int colon = field.indexOf(':');
            if (colon <= 0 || colon == field.length() - 1) {
                return null;
            }
            return new Field(field.substring(0, colon), field.substring(colon + 1));
        }
    }
}
