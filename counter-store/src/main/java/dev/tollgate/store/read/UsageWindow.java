package dev.tollgate.store.read;

import dev.tollgate.store.key.UsageKeys;

import java.util.Map;

/**
 * Reading one shard's hash of a usage window ({@link CounterReads#usageWindow}): the shards are handed over
 * as they are read and parsed with this, so a reader never holds a whole window (at 1,000,000 keys,
 * 1,000,000 fields a region) as text. Fields that are not a rule and a key, and counts that are not a
 * positive number, are skipped (no pod writes them).
 */
public final class UsageWindow {

    /** Told of each rule and key with usage in the window. */
    @FunctionalInterface
    public interface Admissions {
        void admitted(String ruleId, String key, long cost);
    }

    private UsageWindow() {
    }

    /** Tells {@code admissions} of each counted field of one shard's hash, {@code <rule>:<key>} to cost. */
    public static void forEach(Map<String, String> hash, Admissions admissions) {
        for (Map.Entry<String, String> field : hash.entrySet()) {
            UsageKeys.Field parsed = UsageKeys.Field.parse(field.getKey());
            long cost = cost(field.getValue());
            if (parsed != null && cost > 0) {
                admissions.admitted(parsed.ruleId(), parsed.key(), cost);
            }
        }
    }

    private static long cost(String value) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
