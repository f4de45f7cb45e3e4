package dev.tollgate.rules.rule;

import dev.tollgate.common.rule.Rule;

import java.time.Instant;

/**
 * A rule's canary as stored: the version the canary pods enforce instead of the rule, until it is promoted or
 * rolled back.
 *
 * @param rule        the canary version, at its own version ({@link #version()}), above every version the rule has had
 * @param baseVersion the rule's version it was written against, and the one it is promoted over
 * @param writtenAt   when it was written: what a rate since then is measured from
 */
public record RuleCanary(Rule rule, long baseVersion, Instant writtenAt) {

    public long version() {
        return rule.version();
    }
}
