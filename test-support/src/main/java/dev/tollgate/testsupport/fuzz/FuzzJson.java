package dev.tollgate.testsupport.fuzz;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;

/** JSON pieces, written by hand so that duplicate keys, raw numbers and broken text can be sent. */
public final class FuzzJson {

    private FuzzJson() {
    }

    /** The non-empty members, rotated by {@code order} so that fields come in different orders, joined into an object. */
    public static String object(int order, String... members) {
        List<String> present = Arrays.stream(members).filter(m -> !m.isEmpty()).collect(Collectors.toList());
        Collections.rotate(present, order);
        return "{" + String.join(",", present) + "}";
    }

    /**
     * A JSON string. Escaped: controls and every surrogate as backslash-u escapes, so a lone surrogate
     * reaches the service as a char. Raw: as it is, so a control is invalid JSON and a lone surrogate
     * becomes the encoder's replacement byte.
     */
    public static String string(String value, boolean raw) {
        StringBuilder out = new StringBuilder("\"");
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (!raw && (c < 0x20 || Character.isSurrogate(c) || c == 0x7F)) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }
}
