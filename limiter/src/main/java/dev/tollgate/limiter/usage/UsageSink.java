package dev.tollgate.limiter.usage;

/**
 * Told of every admitted entry of a limit split across regions ({@link dev.tollgate.common.rule.Rule#regionBudgeted()}:
 * the budget rebalancer's input; per-IP limits and login logs are not reported), of every entry checked (with
 * whether its rule denied it), of every entry a shadow rule would have denied, and of every entry denied by the
 * version of the rule that denied it, on the request's thread: an implementation must only count in memory and never block (usage reaches Redis later, in
 * batches, off the request path).
 */
@FunctionalInterface
public interface UsageSink {

    UsageSink NONE = (ruleId, key, cost) -> { };

    void admitted(String ruleId, String key, long cost);

    /**
     * A shadow rule would have denied this cost (its verdict was not enforced). Counted per rule only:
     * what support weighs before enforcing a rule is how often it would deny, region-wide.
     */
    default void shadowDenied(String ruleId, long cost) {
    }

    /**
     * An entry of a known rule was checked, and the rule itself denied it or not (a shadow rule: would have denied),
     * whatever the other entries of the request answered: what a simulation of another version of the rule replays.
     * Every rule is told, per-IP and login rules included: the recorder samples keys per rule, so a spray of keys
     * costs a bounded few.
     */
    default void checked(String ruleId, String key, long cost, boolean denied) {
    }

    /**
     * The rule at {@code version} denied this cost ({@code shadow}: would have, in shadow mode). Counted per rule and
     * version only: what a rule's canary is compared on with the version the other pods enforce.
     */
    default void denied(String ruleId, long version, boolean shadow, long cost) {
    }
}
