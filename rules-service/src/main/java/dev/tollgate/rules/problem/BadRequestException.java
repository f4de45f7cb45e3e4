package dev.tollgate.rules.problem;

/** 400 {@code bad_request}: a header or parameter that cannot be read at all (an {@code If-Match} of "abc"). */
public final class BadRequestException extends RuntimeException {

    public BadRequestException(String message) {
        super(message, null, false, false);
    }
}
