package dev.tollgate.rules.problem;

/**
 * 428 {@code precondition_required}: a change to an existing rule came without {@code If-Match}. Without
 * it two support engineers editing the same rule would silently overwrite each other.
 */
public final class PreconditionRequiredException extends RuntimeException {

    public PreconditionRequiredException(String message) {
        super(message, null, false, false);
    }
}
