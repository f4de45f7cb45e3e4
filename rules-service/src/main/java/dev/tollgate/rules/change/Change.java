package dev.tollgate.rules.change;

/**
 * One change to record in the history, in the transaction that makes it: a {@link RuleChange}, an
 * {@link OverrideChange} or a {@link DescriptorChange}, each made by a factory named for what happened, so that what a history row
 * holds (which versions, which values before and after) follows from the kind of change.
 */
public sealed interface Change permits RuleChange, OverrideChange, DescriptorChange {

    /** What changed; the history stores it lower-case. */
    enum Entity { RULE, OVERRIDE, DESCRIPTOR_DOMAIN }

    /**
     * How it changed; the history stores it lower-case. {@code CANARY}, {@code PROMOTE} and {@code ROLLBACK} are a
     * rule's rollout: its canary written, made the rule, or dropped.
     */
    enum Kind {
        CREATE, REPLACE, DELETE, SHADOW, ENFORCE, CANARY, PROMOTE, ROLLBACK;

        /** Whether this is a change every versioned thing can have, not only a rule (a mode switch, a rollout). */
        boolean plain() {
            return this == CREATE || this == REPLACE || this == DELETE;
        }
    }

    Entity entity();

    Kind kind();

    /** The rule changed, or the rule the override changes; for a descriptor domain, the domain. */
    String ruleId();

    /** The subject of the bearer token that asked for it. */
    String actor();

    /** Why, in the words of whoever asked; may be absent. */
    String reason();

    /** A create has nothing before it and a delete nothing after it; any other change has both. */
    static void requireValues(Kind kind, Object before, Object after) {
        boolean consistent = switch (kind) {
            case CREATE -> before == null && after != null;
            case DELETE -> before != null && after == null;
            case REPLACE, SHADOW, ENFORCE, CANARY, PROMOTE, ROLLBACK -> before != null && after != null;
        };
        if (!consistent) {
            throw new IllegalArgumentException("a " + kind + " has " + (before == null ? "no" : "a") + " value before and "
                    + (after == null ? "no" : "a") + " value after");
        }
    }
}
