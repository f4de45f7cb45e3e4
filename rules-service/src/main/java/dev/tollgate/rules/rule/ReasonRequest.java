package dev.tollgate.rules.rule;

/** The optional body of {@code :shadow} and {@code :enforce}: why, for the history. */
record ReasonRequest(String reason) {
}
