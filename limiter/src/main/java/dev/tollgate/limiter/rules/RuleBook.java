package dev.tollgate.limiter.rules;

import dev.tollgate.common.rule.Rule;

/**
 * The rules a pod enforces, read on every request: an in-memory lookup, never a remote call. A rules
 * outage must never block traffic, so implementations answer from the last good snapshot they hold.
 */
public interface RuleBook {

    /**
     * The rule as it applies to this key, with the key's account override applied when one is active,
     * or null when the domain has no rule of that id.
     */
    Rule find(String domain, String ruleId, String key);

    /** This region's share of the key's limit under the rule, in (0, 1]; the whole limit unless a budget says otherwise. */
    default double share(Rule rule, String key) {
        return 1.0;
    }
}
