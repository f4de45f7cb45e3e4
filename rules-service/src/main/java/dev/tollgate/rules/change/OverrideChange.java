package dev.tollgate.rules.change;

import dev.tollgate.common.rule.AccountOverride;

/**
 * An account's override created, replaced or deleted. Overrides have no versions; the history keeps
 * the override as it was and as it became.
 *
 * @param before the override before the change; none for a create
 * @param after  the override after it; none for a delete
 */
public record OverrideChange(Kind kind, AccountOverride before, AccountOverride after, String actor, String reason)
        implements Change {

    public OverrideChange {
        Change.requireValues(kind, before, after);
        if (!kind.plain()) {
            throw new IllegalArgumentException("an override has no mode to switch, nor a rollout");
        }
    }

    /** A new override; its own reason is the change's. */
    public static OverrideChange created(AccountOverride override, String actor) {
        return new OverrideChange(Kind.CREATE, null, override, actor, override.reason());
    }

    /** An override written over another; the new one's reason is the change's. */
    public static OverrideChange replaced(AccountOverride before, AccountOverride after, String actor) {
        return new OverrideChange(Kind.REPLACE, before, after, actor, after.reason());
    }

    public static OverrideChange deleted(AccountOverride override, String actor, String reason) {
        return new OverrideChange(Kind.DELETE, override, null, actor, reason);
    }

    @Override
    public Entity entity() {
        return Entity.OVERRIDE;
    }

    @Override
    public String ruleId() {
        return (after != null ? after : before).ruleId();
    }

    public String accountId() {
        return (after != null ? after : before).accountId();
    }
}
