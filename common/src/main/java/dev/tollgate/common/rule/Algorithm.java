package dev.tollgate.common.rule;

/** How a rule counts. Each algorithm has its own Lua script and its own kind of {@link Limit}, from which a rule's algorithm follows. */
public enum Algorithm {
    /** Continuous refill of {@code rate_per_s} per {@code period_s}, up to {@code burst}. */
    TOKEN_BUCKET,
    /** At most {@code limit} accepted events in any trailing {@code window_s}: login attempts. */
    SLIDING_LOG,
    /** At most {@code limit} per UTC-aligned {@code window_s}: daily quotas. */
    FIXED_WINDOW
}
