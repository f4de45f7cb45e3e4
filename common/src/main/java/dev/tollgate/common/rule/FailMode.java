package dev.tollgate.common.rule;

/**
 * What a rule answers when its counter shard cannot be reached. API rules fail open (the API keeps
 * serving on a local fallback bucket); abuse-sensitive rules such as login fail closed.
 */
public enum FailMode {
    OPEN, CLOSED
}
