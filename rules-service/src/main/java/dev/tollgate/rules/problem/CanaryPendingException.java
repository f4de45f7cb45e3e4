package dev.tollgate.rules.problem;

/**
 * 409 {@code canary_pending}: the rule has a canary, so it changes by its promote or rollback only. A second canary,
 * or a change to the rule under it, would leave the canary pods enforcing a version nobody can tell from the rule.
 */
public final class CanaryPendingException extends RuntimeException {

    public CanaryPendingException(String message) {
        super(message, null, false, false);
    }
}
