/**
 * Per-account overrides of a token-bucket rule's rate and burst, over HTTP and in their table: write,
 * list, delete. Expiry needs no job: an override stops applying at its {@code expires_at}, on every pod,
 * by that pod's clock.
 */
package dev.tollgate.rules.override;
