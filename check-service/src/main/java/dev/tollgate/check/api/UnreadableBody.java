package dev.tollgate.check.api;

import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.TokenStreamContext;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.exc.UnrecognizedPropertyException;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Why Jackson could not read a check request, as a field path ({@code entries[0].cost}) and a short
 * reason. Never quotes what the caller sent beyond a bounded field name: the value may be a number
 * of a billion digits, and the problem body is built for every bad request.
 */
record UnreadableBody(String field, String message) {

    /** Field names are echoed, so a name of 50,000 characters is cut here. */
    static final int MAX_NAME = 64;
    private static final String DUPLICATE = "Duplicate Object property \"";
    private static final String TRAILING = "Trailing token";

    static UnreadableBody of(Throwable error) {
        JacksonException jackson = find(error, JacksonException.class);
        if (jackson == null) {
            return new UnreadableBody("", "the body is missing or is not JSON");
        }
        String original = jackson.getOriginalMessage();
        boolean duplicate = original != null && original.startsWith(DUPLICATE);
        String path = jackson.getPath().isEmpty() && jackson instanceof StreamReadException read
                ? path(read, duplicate) : path(jackson.getPath());
        if (jackson instanceof UnrecognizedPropertyException) {
            return new UnreadableBody(path, "is not a field of this request");
        }
        if (original != null && original.startsWith(TRAILING)) {
            return new UnreadableBody(path, "is followed by more than one JSON value");
        }
        if (jackson instanceof MismatchedInputException mismatch) {
            return new UnreadableBody(path, "must be " + expected(mismatch.getTargetType()));
        }
        if (jackson instanceof StreamConstraintsException) {
            return new UnreadableBody(path, "exceeds what a check request may hold (nesting, number or name length)");
        }
        if (duplicate) {
            int end = original.lastIndexOf('"');
            String name = end > DUPLICATE.length() ? original.substring(DUPLICATE.length(), end) : "";
            return new UnreadableBody(join(path, bounded(name)), "appears more than once in the same object");
        }
        if (jackson instanceof StreamReadException) {
            return new UnreadableBody(path, "is not valid JSON");
        }
        return new UnreadableBody(path, "cannot be read");
    }

    /** Jackson's path as a caller writes it: {@code entries[0].cost}, with names as they are on the wire. */
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
        if (Number.class.isAssignableFrom(type) || type == BigDecimal.class || type.isPrimitive() && type != boolean.class) {
            return "a number";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        }
        if (Collection.class.isAssignableFrom(type) || type.isArray() || type == List.class) {
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
