package dev.tollgate.rules.change;

/**
 * Published inside a write transaction for each recorded change; listeners take it after commit
 * ({@code @TransactionalEventListener}), so a rolled-back change wakes nobody and counts nowhere.
 */
public record StoreChanged(long revision, Change.Entity entity, Change.Kind kind) {
}
