package dev.tollgate.cli;

/**
 * A run that cannot go on, with the exit code it ends with and a message for the person reading the job's log:
 * a bad argument, the service unreachable, a file that cannot be written. Printed by {@link Tollgate}'s handler
 * without a stack trace; the message never holds the token.
 */
final class Failure extends RuntimeException {

    private final int exitCode;

    Failure(int exitCode, String message) {
        super(message, null, false, false);
        this.exitCode = exitCode;
    }

    static Failure usage(String message) {
        return new Failure(ExitCodes.UNAVAILABLE, message);
    }

    int exitCode() {
        return exitCode;
    }
}
