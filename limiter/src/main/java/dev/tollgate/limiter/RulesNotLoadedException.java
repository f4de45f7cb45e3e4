package dev.tollgate.limiter;

/**
 * The pod holds no rules yet (its first snapshot has neither been fetched nor read from disk). It
 * cannot tell a fail-closed login rule from an unknown one, so it answers no check rather than allow
 * every entry as unknown; check-service answers 503 {@code rules_unavailable}, and the gateway applies
 * its own failure mode. Readiness keeps traffic away from such a pod in the first place.
 */
public final class RulesNotLoadedException extends RuntimeException {

    public RulesNotLoadedException() {
        super("the pod has no rules yet: no snapshot has been applied", null, false, false);
    }
}
