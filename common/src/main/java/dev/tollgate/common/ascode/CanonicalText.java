package dev.tollgate.common.ascode;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Writes a plain tree (maps in the order given, lists, strings, whole numbers, booleans) as text with one
 * spelling for each tree, so that the same configuration is always the same bytes: two spaces of indentation, a
 * list's items indented under their key, one line per scalar, a final newline, and in YAML a string quoted
 * exactly when it could be read as anything but itself. Written by hand rather than by a YAML library, whose
 * quoting and line breaking are its own and change between versions; both formats are read back by
 * {@link dev.tollgate.common.wire.PlainTree}.
 */
final class CanonicalText {

    /** Strings YAML writes plain: ids, plans, routes. Anything else is quoted (numbers, dates, {@code *}, {@code :}, spaces). */
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z_/][A-Za-z0-9_./-]*");
    /** Words some YAML reader takes for a boolean or a null (YAML 1.1 readers too), quoted whatever this one does. */
    private static final Set<String> RESERVED = Set.of("true", "false", "null", "yes", "no", "on", "off", "y", "n");

    private CanonicalText() {
    }

    static String yaml(Map<String, Object> root) {
        StringBuilder out = new StringBuilder();
        yamlMap(root, 0, false, out);
        return out.toString();
    }

    static String json(Map<String, Object> root) {
        StringBuilder out = new StringBuilder();
        json(root, 0, out);
        return out.append('\n').toString();
    }

    /** @param onDashLine the first entry continues a {@code "- "} line already written */
    private static void yamlMap(Map<String, Object> map, int indent, boolean onDashLine, StringBuilder out) {
        boolean first = true;
        for (Map.Entry<String, Object> entry : map.entrySet()) {
            if (!(first && onDashLine)) {
                out.append(" ".repeat(indent));
            }
            first = false;
            out.append(entry.getKey()).append(':');
            yamlValue(entry.getValue(), indent, out);
        }
    }

    private static void yamlValue(Object value, int indent, StringBuilder out) {
        if (value instanceof Map<?, ?> map) {
            out.append('\n');
            yamlMap(cast(map), indent + 2, false, out);
        } else if (value instanceof List<?> list) {
            out.append('\n');
            for (Object item : list) {
                out.append(" ".repeat(indent + 2)).append("- ");
                if (item instanceof Map<?, ?> map) {
                    yamlMap(cast(map), indent + 4, true, out);
                } else {
                    out.append(yamlScalar(item)).append('\n');
                }
            }
        } else {
            out.append(' ').append(yamlScalar(value)).append('\n');
        }
    }

    private static String yamlScalar(Object value) {
        if (value instanceof String text) {
            boolean plain = PLAIN.matcher(text).matches() && !RESERVED.contains(text.toLowerCase(Locale.ROOT));
            return plain ? text : quoted(text);
        }
        return String.valueOf(value);
    }

    private static void json(Object value, int indent, StringBuilder out) {
        if (value instanceof Map<?, ?> map) {
            out.append('{');
            String separator = "\n";
            for (Map.Entry<String, Object> entry : cast(map).entrySet()) {
                out.append(separator).append(" ".repeat(indent + 2)).append(quoted(entry.getKey())).append(": ");
                json(entry.getValue(), indent + 2, out);
                separator = ",\n";
            }
            out.append(map.isEmpty() ? "" : "\n" + " ".repeat(indent)).append('}');
        } else if (value instanceof List<?> list) {
            out.append('[');
            String separator = "\n";
            for (Object item : list) {
                out.append(separator).append(" ".repeat(indent + 2));
                json(item, indent + 2, out);
                separator = ",\n";
            }
            out.append(list.isEmpty() ? "" : "\n" + " ".repeat(indent)).append(']');
        } else if (value instanceof String text) {
            out.append(quoted(text));
        } else {
            out.append(value);
        }
    }

    /**
     * A double-quoted string, escaped so that JSON and YAML both read it back as it was: quote, backslash and
     * every character a reader might take for a line break or drop (C0 and C1 controls, U+2028, U+2029, a
     * byte-order mark) as an escape; all other text as it is, in UTF-8.
     */
    static String quoted(String text) {
        StringBuilder out = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029' || c == '\ufeff') {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> cast(Map<?, ?> map) {
        return (Map<String, Object>) map;
    }
}
