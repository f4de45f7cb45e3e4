package dev.tollgate.rules.store;

/**
 * One change to record in the history, in the transaction that makes it.
 *
 * @param ruleId    the rule's id; for a descriptor domain, the domain
 * @param accountId the override's account; null for a rule
 * @param oldValue  the entity before (null on create), serialised as on the wire
 * @param newValue  the entity after (null on delete)
 * @param actor     the subject of the bearer token that asked for it
 */
public record Change(
        Entity entity,
        Kind kind,
        String ruleId,
        String accountId,
        Long oldVersion,
        Long newVersion,
        Object oldValue,
        Object newValue,
        String actor,
        String reason) {

    public enum Entity { RULE, OVERRIDE, REGION_BUDGET, DESCRIPTOR_DOMAIN }

    public enum Kind { CREATE, REPLACE, DELETE, SHADOW, ENFORCE }
}
