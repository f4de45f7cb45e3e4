package dev.tollgate.common.rule;

/**
 * What a rule's key identifies. The engine treats every key as opaque text; the identity decides only
 * whether the key's limit is split across regions ({@link Rule#regionBudgeted()}): an account's
 * {@code API_KEY} or {@code USER} is, an {@code IP}, which the caller chooses, is not.
 */
public enum Identity {
    API_KEY, IP, USER
}
