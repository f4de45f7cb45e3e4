package dev.tollgate.rules.problem;

import dev.tollgate.common.wire.UnreadableJson;

import java.time.temporal.Temporal;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Why Jackson could not read a request body, as a field path ({@code match.plan}) and a short reason,
 * in the words {@link UnreadableJson} shares with check-service except for the types only rules have.
 * A value that is well-formed JSON of the right type but not one of an enum's values
 * ({@code "algorithm": "leaky"}) is a rule that cannot be enforced, so it is {@link #invalidValue()}
 * (422 {@code invalid_rule}) like every other such field, not a 400.
 */
record UnreadableBody(String field, String message, boolean invalidValue) {

    static UnreadableBody of(Throwable error) {
        UnreadableJson unreadable = UnreadableJson.of(error);
        Class<?> type = unreadable.targetType();
        if (unreadable.kind() != UnreadableJson.Kind.WRONG_TYPE || type == null) {
            return new UnreadableBody(unreadable.field(), unreadable.reason(), false);
        }
        if (type.isEnum()) {
            return new UnreadableBody(unreadable.field(), "must be one of " + values(type), true);
        }
        String expected = Temporal.class.isAssignableFrom(type)
                ? "an ISO-8601 instant such as 2030-01-01T00:00:00Z" : UnreadableJson.expected(type, "a whole number");
        return new UnreadableBody(unreadable.field(), "must be " + expected, false);
    }

    private static String values(Class<?> type) {
        return Arrays.stream(type.getEnumConstants())
                .map(value -> ((Enum<?>) value).name().toLowerCase(Locale.ROOT))
                .collect(Collectors.joining(", "));
    }
}
