package dev.tollgate.rules.problem;

import java.io.IOException;

/**
 * 413 {@code payload_too_large}: the body went past the service's limit while it was being read. An
 * {@link IOException}, because it is thrown from the body's input stream, under whatever reads it.
 */
public final class BodyTooLargeException extends IOException {

    public BodyTooLargeException(long limit) {
        super("The request body is larger than " + limit + " bytes, the most this service accepts.", null);
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
        return this;
    }
}
