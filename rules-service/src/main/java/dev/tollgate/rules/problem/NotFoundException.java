package dev.tollgate.rules.problem;

/** 404 {@code not_found}: no rule (or override) of that id. */
public final class NotFoundException extends RuntimeException {

    public NotFoundException(String message) {
        super(message, null, false, false);
    }
}
