package dev.tollgate.check.api;

import tools.jackson.core.JacksonException;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.exc.UnrecognizedPropertyException;

import java.math.BigDecimal;
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

    static UnreadableBody of(Throwable error) {
        JacksonException jackson = find(error, JacksonException.class);
        if (jackson == null) {
            return new UnreadableBody("", "the body is missing or is not JSON");
        }
        String path = path(jackson.getPath());
        if (jackson instanceof UnrecognizedPropertyException) {
            return new UnreadableBody(path, "is not a field of this request");
        }
        if (jackson instanceof MismatchedInputException mismatch) {
            return new UnreadableBody(path, "must be " + expected(mismatch.getTargetType()));
        }
        if (jackson instanceof StreamConstraintsException) {
            return new UnreadableBody(path, "exceeds what a check request may hold (nesting, number or name length)");
        }
        String original = jackson.getOriginalMessage();
        if (jackson instanceof StreamReadException && original != null && original.startsWith(DUPLICATE)) {
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
