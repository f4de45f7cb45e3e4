package dev.tollgate.common.wire;

import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.TokenStreamContext;
import tools.jackson.core.exc.InputCoercionException;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.exc.UnrecognizedPropertyException;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Why Jackson could not read a request body: what kind of failure, where as a field path a caller
 * writes ({@code entries[0].cost}, {@code match.plan}) and, for a value of the wrong type, the type it
 * was read into. Each service words its answer from this ({@link #reason()} is the wording they
 * share). Never carries what the caller sent beyond a bounded field name: the value may be a number of
 * a billion digits, and a problem body is built for every bad request.
 *
 * @param targetType the type the value was read into, for {@link Kind#WRONG_TYPE} only (else null,
 *                   and null there too when Jackson does not know it)
 */
public record UnreadableJson(Kind kind, String field, Class<?> targetType) {

    /** What went wrong, in the order of precedence {@link #of} checks them. */
    public enum Kind {
        /** No Jackson failure among the causes: the body is missing, or not JSON at all. */
        NOT_JSON,
        /** A field the request type does not have. */
        UNKNOWN_FIELD,
        /** A second JSON value after the first. */
        TRAILING,
        /** Well-formed JSON of the wrong type (or, for an enum, not one of its values). */
        WRONG_TYPE,
        /** A number the parser cannot hold in the type asked for. */
        OUT_OF_RANGE,
        /** Past the parser's limits: nesting, a number's or a name's length. */
        TOO_LARGE,
        /** A key given twice in one object; {@link #field()} names it. */
        DUPLICATE,
        /** Not valid JSON. */
        SYNTAX,
        /** Anything else Jackson refused. */
        OTHER
    }

    /** Field names are echoed, so a name of 50,000 characters is cut here. */
    public static final int MAX_NAME = 64;
    private static final String DUPLICATE = "Duplicate Object property \"";
    private static final String TRAILING = "Trailing token";

    /** The Jackson failure among {@code error}'s causes, classified; {@link Kind#NOT_JSON} if there is none. */
    public static UnreadableJson of(Throwable error) {
        JacksonException jackson = find(error, JacksonException.class);
        if (jackson == null) {
            return new UnreadableJson(Kind.NOT_JSON, "", null);
        }
        String original = jackson.getOriginalMessage();
        boolean duplicate = original != null && original.startsWith(DUPLICATE);
        String path = jackson.getPath().isEmpty() && jackson instanceof StreamReadException read
                ? path(read, duplicate) : path(jackson.getPath());
        // an unknown field is a MismatchedInputException too, so it is asked first
        if (jackson instanceof UnrecognizedPropertyException) {
            return new UnreadableJson(Kind.UNKNOWN_FIELD, path, null);
        }
        if (original != null && original.startsWith(TRAILING)) {
            return new UnreadableJson(Kind.TRAILING, path, null);
        }
        if (jackson instanceof MismatchedInputException mismatch) {
            return new UnreadableJson(Kind.WRONG_TYPE, path, mismatch.getTargetType());
        }
        // the parser's own failures, all StreamReadExceptions: the specific ones before the syntax catch-all
        if (jackson instanceof InputCoercionException) {
            return new UnreadableJson(Kind.OUT_OF_RANGE, path, null);
        }
        if (jackson instanceof StreamConstraintsException) {
            return new UnreadableJson(Kind.TOO_LARGE, path, null);
        }
        if (duplicate) {
            int end = original.lastIndexOf('"');
            String name = end > DUPLICATE.length() ? original.substring(DUPLICATE.length(), end) : "";
            return new UnreadableJson(Kind.DUPLICATE, join(path, bounded(name)), null);
        }
        if (jackson instanceof StreamReadException) {
            return new UnreadableJson(Kind.SYNTAX, path, null);
        }
        return new UnreadableJson(Kind.OTHER, path, null);
    }

    /** The reason in the words both APIs use, to follow the field: {@code "cost" must be a number}. */
    public String reason() {
        return switch (kind) {
            case NOT_JSON -> "the body is missing or is not JSON";
            case UNKNOWN_FIELD -> "is not a field of this request";
            case TRAILING -> "is followed by more than one JSON value";
            case WRONG_TYPE -> "must be " + expected(targetType, "a number");
            case OUT_OF_RANGE -> "is out of range";
            case TOO_LARGE -> "exceeds what a request may hold (nesting, number or name length)";
            case DUPLICATE -> "appears more than once in the same object";
            case SYNTAX -> "is not valid JSON";
            case OTHER -> "cannot be read";
        };
    }

    /**
     * A value of {@code type} as a caller thinks of it: "a string", "true or false", "an array", ...;
     * {@code number} for every numeric type, since a service knows whether it takes only whole ones.
     */
    public static String expected(Class<?> type, String number) {
        if (type == null) {
            return "of another type";
        }
        if (type == String.class) {
            return "a string";
        }
        if (Number.class.isAssignableFrom(type) || type.isPrimitive() && type != boolean.class) {
            return number;
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        }
        if (Collection.class.isAssignableFrom(type) || type.isArray()) {
            return "an array";
        }
        return "an object";
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

    private static <T extends Throwable> T find(Throwable error, Class<T> type) {
        for (Throwable cause = error; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (type.isInstance(cause)) {
                return type.cast(cause);
            }
        }
        return null;
    }
}
