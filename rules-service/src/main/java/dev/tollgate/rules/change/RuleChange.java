package dev.tollgate.rules.change;

import dev.tollgate.common.rule.Rule;

/**
 * A rule created, replaced, deleted, switched between shadow and enforce, or rolled out through a canary. The
 * history keeps the rule as it was and as it became, with their versions.
 *
 * @param before the rule before the change; none for a create
 * @param after  the rule after it; none for a delete
 */
public record RuleChange(Kind kind, Rule before, Rule after, String actor, String reason) implements Change {

    public RuleChange {
        Change.requireValues(kind, before, after);
    }

    public static RuleChange created(Rule rule, String actor, String reason) {
        return new RuleChange(Kind.CREATE, null, rule, actor, reason);
    }

    public static RuleChange replaced(Rule before, Rule after, String actor, String reason) {
        return new RuleChange(Kind.REPLACE, before, after, actor, reason);
    }

    public static RuleChange deleted(Rule rule, String actor, String reason) {
        return new RuleChange(Kind.DELETE, rule, null, actor, reason);
    }

    /** Into shadow or back to enforce: the kind is the mode {@code after} is in. */
    public static RuleChange modeSwitched(Rule before, Rule after, String actor, String reason) {
        return new RuleChange(after.shadow() ? Kind.SHADOW : Kind.ENFORCE, before, after, actor, reason);
    }

    /** A canary written: the rule as it stays for every pod but the canary pods, and the canary they enforce instead. */
    public static RuleChange canaryWritten(Rule rule, Rule canary, String actor, String reason) {
        return new RuleChange(Kind.CANARY, rule, canary, actor, reason);
    }

    /** The canary made the rule: the rule before, and the rule as every pod now enforces it, at the canary's version. */
    public static RuleChange promoted(Rule before, Rule after, String actor, String reason) {
        return new RuleChange(Kind.PROMOTE, before, after, actor, reason);
    }

    /** The canary dropped: the canary before, and the rule the canary pods go back to. */
    public static RuleChange rolledBack(Rule canary, Rule rule, String actor, String reason) {
        return new RuleChange(Kind.ROLLBACK, canary, rule, actor, reason);
    }

    @Override
    public Entity entity() {
        return Entity.RULE;
    }

    @Override
    public String ruleId() {
        return after != null ? after.id() : before.id();
    }
}
