package dev.tollgate.limiter.rules;

import dev.tollgate.common.rule.AccountOverride;
import dev.tollgate.common.rule.Rule;

import java.util.Optional;

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

    /** The key's account override of the rule that {@link #find} applied, when one is in force: what explain shows. */
    default Optional<AccountOverride> override(String domain, String ruleId, String key) {
        return Optional.empty();
    }

    /** This region's share of the key's limit under the rule, in (0, 1]; the whole limit unless a budget says otherwise. */
    default double share(Rule rule, String key) {
        return 1.0;
    }

    /**
     * The rules as of this moment. A check reads all its entries from one view, so one request never
     * mixes a rule of one revision with the shares or overrides of the next.
     */
    default RuleBook view() {
        return this;
    }

    /** Which rules apply to a plan and a route, for a check by attributes (in a {@link #view()}: that view's rules). */
    default RuleIndex index() {
        return RuleIndex.EMPTY;
    }

    /**
     * Whether the book holds any rules yet. Before it does, the pod cannot tell a fail-closed login rule
     * from an unknown one, so it must not answer checks as if every rule were unknown (and allowed).
     */
    default boolean loaded() {
        return true;
    }
}
