package dev.tollgate.common.rule;

/**
 * When a rule's requests are counted. {@code INLINE}, the default, checks the store before admitting (paid
 * plans, login). {@code AFTER} admits from the pod's own flag ("this key is over until T") and counts in the
 * store asynchronously, in batches: for DDoS-scale per-IP rules, where a few extra requests do not matter and a
 * store call per request does. A key may then run over its limit by a bounded amount, which the rules API
 * states for each such rule (docs/rules.md, "Counting after").
 */
public enum Counting {
    INLINE, AFTER
}
