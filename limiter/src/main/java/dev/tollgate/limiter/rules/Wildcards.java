package dev.tollgate.limiter.rules;

import java.util.ArrayList;
import java.util.List;

/**
 * Descriptor values with {@code *} in them, as envoyproxy/ratelimit matches them: each star fits any run of
 * characters, none included. Split once when the mapping is compiled, so matching allocates nothing.
 */
final class Wildcards {

    private Wildcards() {
    }

    /** The literal parts between the stars: {@code "/v1/*\/labels*"} is {@code ["/v1/", "/labels", ""]}. */
    static List<String> parts(String pattern) {
        List<String> parts = new ArrayList<>();
        int from = 0;
        for (int star = pattern.indexOf('*'); star >= 0; star = pattern.indexOf('*', from)) {
            parts.add(pattern.substring(from, star));
            from = star + 1;
        }
        parts.add(pattern.substring(from));
        return List.copyOf(parts);
    }

    /** Whether {@code value} fits the pattern split into {@code parts}: first part first, last part last, the others in order between. */
    static boolean fits(List<String> parts, String value) {
        if (parts.size() < 2) {
            return false;
        }
        String first = parts.get(0);
        String last = parts.get(parts.size() - 1);
        if (value.length() < first.length() + last.length() || !value.startsWith(first) || !value.endsWith(last)) {
            return false;
        }
        int at = first.length();
        int end = value.length() - last.length();
        for (int i = 1; i < parts.size() - 1; i++) {
            int found = value.indexOf(parts.get(i), at);
            if (found < 0 || found + parts.get(i).length() > end) {
                return false;
            }
            at = found + parts.get(i).length();
        }
        return true;
    }
}
