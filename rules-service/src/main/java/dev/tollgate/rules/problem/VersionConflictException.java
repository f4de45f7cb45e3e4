package dev.tollgate.rules.problem;

/**
 * 409 {@code version_conflict}: the rule changed (or was deleted) since the caller read the version it
 * names in {@code If-Match}. The client re-reads and re-applies.
 *
 * @see #currentVersion() the version now stored, or null when the rule no longer exists
 */
public final class VersionConflictException extends RuntimeException {

    private final Long currentVersion;

    public VersionConflictException(String message, Long currentVersion) {
        super(message, null, false, false);
        this.currentVersion = currentVersion;
    }

    public Long currentVersion() {
        return currentVersion;
    }
}
