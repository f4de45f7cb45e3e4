package dev.tollgate.store.read;

import dev.tollgate.store.key.UsageKeys;

import java.util.List;
import java.util.Map;

/**
 * One usage window of a region as read: every shard's hash. Fields that are not a rule and a key, and
 * counts that are not a positive number, are skipped as they are visited (no pod writes them).
 *
 * @param windowStart the window, in epoch seconds
 * @param hashes      each shard's fields, {@code <rule>:<key>} to cost
 */
public record UsageWindow(long windowStart, List<Map<String, String>> hashes) {

    /** Told of each rule and key with usage in the window. */
    @FunctionalInterface
    public interface Admissions {
        void admitted(String ruleId, String key, long cost);
    }

    public UsageWindow {
        hashes = List.copyOf(hashes);
    }

    /** Fields read, counted or not. */
    public long fields() {
        long fields = 0;
        for (Map<String, String> hash : hashes) {
            fields += hash.size();
        }
        return fields;
    }

    public void forEach(Admissions admissions) {
        for (Map<String, String> hash : hashes) {
            for (Map.Entry<String, String> field : hash.entrySet()) {
                UsageKeys.Field parsed = UsageKeys.Field.parse(field.getKey());
                long cost = cost(field.getValue());
                if (parsed != null && cost > 0) {
                    admissions.admitted(parsed.ruleId(), parsed.key(), cost);
                }
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
