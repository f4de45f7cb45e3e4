package dev.tollgate.check.api;

import dev.tollgate.common.wire.UnreadableJson;

/**
 * Why Jackson could not read a check request, as a field path ({@code entries[0].cost}) and a short
 * reason, in the words {@link UnreadableJson} shares with rules-service except where a check differs.
 */
record UnreadableBody(String field, String message) {

    static UnreadableBody of(Throwable error) {
        UnreadableJson unreadable = UnreadableJson.of(error);
        return new UnreadableBody(unreadable.field(), switch (unreadable.kind()) {
            case TOO_LARGE -> "exceeds what a check request may hold (nesting, number or name length)";
            // no field of a check request is read as a bounded integer: the parser's range refusal is bad JSON here
            case OUT_OF_RANGE -> "is not valid JSON";
            default -> unreadable.reason();
        });
    }
}
