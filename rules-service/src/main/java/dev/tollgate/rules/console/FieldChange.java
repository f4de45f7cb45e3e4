package dev.tollgate.rules.console;

import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * One field that differs between two versions of a rule or override, as the history stores them (the
 * wire JSON). Nested objects ({@code match}) are compared field by field, as {@code match.plan}.
 *
 * @param before the old value as text; null when the field was absent or null
 * @param after  the new value as text; null when it is now absent or null
 */
record FieldChange(String field, String before, String after) {

    /** Fields whose value is bookkeeping, not a decision someone made. */
    private static final List<String> IGNORED = List.of("version");

    static List<FieldChange> between(JsonNode before, JsonNode after) {
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
            JsonNode old = child(before, name);
            JsonNode now = child(after, name);
            if ((old != null && old.isObject()) || (now != null && now.isObject())) {
                collect(prefix + name + ".", old, now, changes);
                continue;
            }
            String oldText = text(old);
            String newText = text(now);
            if (oldText == null ? newText != null : !oldText.equals(newText)) {
                changes.add(new FieldChange(prefix + name, oldText, newText));
            }
        }
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
