package dev.tollgate.rules.problem;

import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.TokenStreamContext;
import tools.jackson.core.exc.InputCoercionException;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.exc.UnrecognizedPropertyException;

import java.time.temporal.Temporal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Why Jackson could not read a request body, as a field path ({@code match.plan}) and a short reason.
 * A value that is well-formed JSON of the right type but not one of an enum's values
 * ({@code "algorithm": "leaky"}) is a rule that cannot be enforced, so it is {@link #invalidValue()}
 * (422 {@code invalid_rule}) like every other such field, not a 400. Never quotes what the caller sent
 * beyond a bounded field name.
 */
record UnreadableBody(String field, String message, boolean invalidValue) {

    /** Field names are echoed, so a name of 50,000 characters is cut here. */
    static final int MAX_NAME = 64;
    private static final String DUPLICATE = "Duplicate Object property \"";
    private static final String TRAILING = "Trailing token";

    static UnreadableBody of(Throwable error) {
        JacksonException jackson = find(error, JacksonException.class);
        if (jackson == null) {
            return new UnreadableBody("", "the body is missing or is not JSON", false);
        }
        String original = jackson.getOriginalMessage();
        boolean duplicate = original != null && original.startsWith(DUPLICATE);
        String path = jackson.getPath().isEmpty() && jackson instanceof StreamReadException read
                ? path(read, duplicate) : path(jackson.getPath());
        if (jackson instanceof UnrecognizedPropertyException) {
            return new UnreadableBody(path, "is not a field of this request", false);
        }
        if (original != null && original.startsWith(TRAILING)) {
            return new UnreadableBody(path, "is followed by more than one JSON value", false);
        }
        if (jackson instanceof MismatchedInputException mismatch) {
            Class<?> type = mismatch.getTargetType();
            if (type != null && type.isEnum()) {
                return new UnreadableBody(path, "must be one of " + values(type), true);
            }
            return new UnreadableBody(path, "must be " + expected(type), false);
        }
        if (jackson instanceof InputCoercionException) {
            return new UnreadableBody(path, "is out of range", false);
        }
        if (jackson instanceof StreamConstraintsException) {
            return new UnreadableBody(path, "exceeds what a request may hold (nesting, number or name length)", false);
        }
        if (duplicate) {
            int end = original.lastIndexOf('"');
            String name = end > DUPLICATE.length() ? original.substring(DUPLICATE.length(), end) : "";
            return new UnreadableBody(join(path, bounded(name)), "appears more than once in the same object", false);
        }
        if (jackson instanceof StreamReadException) {
            return new UnreadableBody(path, "is not valid JSON", false);
        }
        return new UnreadableBody(path, "cannot be read", false);
    }

    /** Jackson's path as a caller writes it: {@code match.plan}, {@code rules[0].id}, with names as on the wire. */
    static String path(Collection<JacksonException.Reference> references) {
        StringBuilder path = new StringBuilder();
        for (JacksonException.Reference reference : references) {
            if (reference.getIndex() >= 0) {
                path.append('[').append(reference.getIndex()).append(']');
            } else if (reference.getPropertyName() != null) {
                if (!path.isEmpty()) {
                    path.append('.');
                }
                path.append(bounded(reference.getPropertyName()));
            }
        }
        return path.toString();
    }

    private static String values(Class<?> type) {
        return Arrays.stream(type.getEnumConstants())
                .map(value -> ((Enum<?>) value).name().toLowerCase(Locale.ROOT))
                .collect(Collectors.joining(", "));
    }

    /**
     * Where the parser stood, for its own errors (a number too long, bad syntax), which carry no
     * data-binding path. The innermost name is the one being read when it failed, except for a
     * duplicate, which is detected before the name is taken: there it is the sibling before it.
     */
    static String path(StreamReadException error, boolean duplicate) {
        JsonParser parser = error.processor();
        if (parser == null) {
            return "";
        }
        List<String> segments = new ArrayList<>();
        boolean innermost = true;
        for (TokenStreamContext context = parser.streamReadContext(); context != null && !context.inRoot(); context = context.getParent()) {
            boolean skip = innermost && duplicate;
            innermost = false;
            if (skip) {
                continue;
            }
            if (context.inArray()) {
                segments.add("[" + Math.max(0, context.getCurrentIndex()) + "]");
            } else if (context.currentName() != null) {
                segments.add("." + bounded(context.currentName()));
            }
        }
        StringBuilder path = new StringBuilder();
        for (int i = segments.size() - 1; i >= 0; i--) {
            path.append(segments.get(i));
        }
        return path.length() > 0 && path.charAt(0) == '.' ? path.substring(1) : path.toString();
    }

    private static String join(String path, String name) {
        return path.isEmpty() ? name : path + "." + name;
    }

    private static String bounded(String name) {
        return name.length() <= MAX_NAME ? name : name.substring(0, MAX_NAME) + "...";
    }

    private static String expected(Class<?> type) {
        if (type == null) {
            return "of another type";
        }
        if (type == String.class) {
            return "a string";
        }
        if (Number.class.isAssignableFrom(type) || type.isPrimitive() && type != boolean.class) {
            return "a whole number";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        }
        if (Temporal.class.isAssignableFrom(type)) {
            return "an ISO-8601 instant such as 2030-01-01T00:00:00Z";
        }
        if (Collection.class.isAssignableFrom(type) || type.isArray()) {
            return "an array";
        }
        return "an object";
    }

    private static <T extends Throwable> T find(Throwable error, Class<T> type) {
        for (Throwable cause = error; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (type.isInstance(cause)) {
                return type.cast(cause);
            }
        }
        return null;
    }
}
