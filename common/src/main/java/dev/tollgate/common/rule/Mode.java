package dev.tollgate.common.rule;

/** A shadow rule is evaluated and counted but never changes a verdict: how a new rule is tried safely. */
public enum Mode {
    ENFORCE, SHADOW
}
