package dev.tollgate.rules.problem;

/** 404 {@code no_canary}: the rule exists, and has no canary to read, promote or roll back. */
public final class NoCanaryException extends RuntimeException {

    public NoCanaryException(String message) {
        super(message, null, false, false);
    }
}
