package dev.tollgate.rules.change;

import dev.tollgate.common.descriptor.DescriptorDomain;

/**
 * A domain's descriptor mappings created, replaced or deleted. The history keeps them as they were and
 * as they became, with their versions, in the rule's column the domain (see the V2 migration).
 *
 * @param before the mappings before the change; none for a create
 * @param after  the mappings after it; none for a delete
 */
public record DescriptorChange(Kind kind, DescriptorDomain before, DescriptorDomain after, String actor, String reason)
        implements Change {

    public DescriptorChange {
        Change.requireValues(kind, before, after);
        if (!kind.plain()) {
            throw new IllegalArgumentException("descriptor mappings have no mode to switch, nor a rollout");
        }
    }

    public static DescriptorChange created(DescriptorDomain domain, String actor, String reason) {
        return new DescriptorChange(Kind.CREATE, null, domain, actor, reason);
    }

    public static DescriptorChange replaced(DescriptorDomain before, DescriptorDomain after, String actor, String reason) {
        return new DescriptorChange(Kind.REPLACE, before, after, actor, reason);
    }

    public static DescriptorChange deleted(DescriptorDomain domain, String actor, String reason) {
        return new DescriptorChange(Kind.DELETE, domain, null, actor, reason);
    }

    @Override
    public Entity entity() {
        return Entity.DESCRIPTOR_DOMAIN;
    }

    @Override
    public String ruleId() {
        return (after != null ? after : before).domain();
    }
}
