package dev.tollgate.limiter.rules;

/**
 * A route as the rules are matched against it: the path alone (no query or fragment), its unreserved
 * characters percent-decoded, each segment's {@code ;} parameters dropped, empty and {@code .} segments dropped,
 * {@code ..} segments resolved, no trailing slash. A caller's spelling ({@code /v1//labels/}, {@code /v1/./labels},
 * {@code /v1/%6Cabels}, {@code /login;x}, {@code /x/..;/login}) cannot step around a route's rule that the backend
 * would still serve the request under: servlet containers and Spring drop path parameters before they route, so
 * {@code /login;x} is their {@code /login}. Dropping them where a backend would not only ever limits more. {@code %2F} stays
 * encoded: it is not a slash to most backends, and decoding it would join segments they keep apart.
 *
 * <p>Public for adapters that read a route from a caller's header (check-service's forward auth): they normalize
 * it before they bound its length, so padding ({@code /./}, {@code //}) cannot push the part a rule matches
 * past the cut.
 */
public final class Routes {

    private Routes() {
    }

    public static String normalize(String route) {
        String path = route;
        int end = indexOfAny(path, '?', '#');
        if (end >= 0) {
            path = path.substring(0, end);
        }
        if (path.indexOf('%') >= 0) {
            path = decodeUnreserved(path);
        }
        StringBuilder normalized = new StringBuilder(path.length() + 1);
        int depth = 0;
        int[] starts = new int[path.length() + 1];
        int from = 0;
        while (from <= path.length()) {
            int slash = path.indexOf('/', from);
            int to = slash < 0 ? path.length() : slash;
            int parameters = path.indexOf(';', from);
            String segment = path.substring(from, parameters >= 0 && parameters < to ? parameters : to);
            if (segment.equals("..")) {
                if (depth > 0) {
                    normalized.setLength(starts[--depth]);
                }
            } else if (!segment.isEmpty() && !segment.equals(".")) {
                starts[depth++] = normalized.length();
                normalized.append('/').append(segment);
            }
            if (slash < 0) {
                break;
            }
            from = slash + 1;
        }
        return normalized.length() == 0 ? "/" : normalized.toString();
    }

    /**
     * The route normalized and then cut to at most {@code max} characters, for a check by attributes whose route
     * may be longer than the validator takes. Every prefix pattern shorter than {@code max} characters that covers the
     * normalized route still covers the cut one, and the engine's own normalizing leaves it as it is: a cut that
     * ends in a {@code .} or {@code ..} segment (which normalizing would resolve upwards) or in a {@code /} (which it
     * would drop) is taken back to the segment before.
     */
    public static String bounded(String route, int max) {
        String normalized = normalize(route);
        if (normalized.length() <= max) {
            return normalized;
        }
        String cut = normalized.substring(0, max);
        int slash = cut.lastIndexOf('/');
        String last = cut.substring(slash + 1);
        if (last.isEmpty() || last.equals(".") || last.equals("..")) {
            cut = cut.substring(0, slash);
        }
        return cut.isEmpty() ? "/" : cut;
    }

    /** A prefix pattern's literal part, normalized as a route but keeping a trailing slash it was written with. */
    static String normalizePrefix(String prefix) {
        String normalized = normalize(prefix);
        return prefix.endsWith("/") && !normalized.equals("/") ? normalized + "/" : normalized;
    }

    private static int indexOfAny(String text, char a, char b) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == a || c == b) {
                return i;
            }
        }
        return -1;
    }

    private static String decodeUnreserved(String path) {
        StringBuilder decoded = new StringBuilder(path.length());
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c == '%' && i + 2 < path.length()) {
                int high = Character.digit(path.charAt(i + 1), 16);
                int low = Character.digit(path.charAt(i + 2), 16);
                if (high >= 0 && low >= 0 && isUnreserved((char) (high * 16 + low))) {
                    decoded.append((char) (high * 16 + low));
                    i += 2;
                    continue;
                }
            }
            decoded.append(c);
        }
        return decoded.toString();
    }

    private static boolean isUnreserved(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
    }
}
