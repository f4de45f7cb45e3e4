package dev.tollgate.rules.change;

import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * One field that differs between two versions of a rule, an override or a descriptor mapping, as the history
 * stores them (the wire JSON): what the console's history shows and what an apply's diff lists. Nested objects
 * ({@code match}) are compared field by field, as {@code match.plan}, and lists item by item, as
 * {@code descriptors[0].rule}.
 *
 * @param before the old value as text; null when the field was absent or null
 * @param after  the new value as text; null when it is now absent or null
 */
public record FieldChange(String field, String before, String after) {

    /** Fields whose value is bookkeeping, not a decision someone made. */
    private static final List<String> IGNORED = List.of("version");

    public static List<FieldChange> between(JsonNode before, JsonNode after) {
        List<FieldChange> changes = new ArrayList<>();
        collect("", before, after, changes);
        return changes;
    }

    private static void collect(String prefix, JsonNode before, JsonNode after, List<FieldChange> changes) {
        TreeSet<String> names = new TreeSet<>();
        names.addAll(fieldNames(before));
        names.addAll(fieldNames(after));
        for (String name : names) {
            if (prefix.isEmpty() && IGNORED.contains(name)) {
                continue;
            }
            compare(prefix + name, child(before, name), child(after, name), changes);
        }
    }

    private static void compare(String field, JsonNode old, JsonNode now, List<FieldChange> changes) {
        if ((old != null && old.isObject()) || (now != null && now.isObject())) {
            collect(field + ".", old, now, changes);
            return;
        }
        if ((old != null && old.isArray()) || (now != null && now.isArray())) {
            int size = Math.max(old != null && old.isArray() ? old.size() : 0, now != null && now.isArray() ? now.size() : 0);
            for (int i = 0; i < size; i++) {
                compare(field + "[" + i + "]", item(old, i), item(now, i), changes);
            }
            return;
        }
        String oldText = text(old);
        String newText = text(now);
        if (oldText == null ? newText != null : !oldText.equals(newText)) {
            changes.add(new FieldChange(field, oldText, newText));
        }
    }

    private static JsonNode item(JsonNode list, int index) {
        return list != null && list.isArray() && index < list.size() ? list.get(index) : null;
    }

    private static List<String> fieldNames(JsonNode node) {
        if (node == null || !node.isObject()) {
            return List.of();
        }
        List<String> names = new ArrayList<>();
        for (Map.Entry<String, JsonNode> property : node.properties()) {
            names.add(property.getKey());
        }
        return names;
    }

    private static JsonNode child(JsonNode node, String name) {
        return node == null || !node.isObject() ? null : node.get(name);
    }

    private static String text(JsonNode value) {
        if (value == null || value.isNull() || value.isMissingNode()) {
            return null;
        }
        return value.isValueNode() ? value.asString() : value.toString();
    }
}
