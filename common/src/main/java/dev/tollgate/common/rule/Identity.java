package dev.tollgate.common.rule;

/** What a rule's key identifies; informational for the engine, which treats every key as opaque text. */
public enum Identity {
    API_KEY, IP, USER
}
