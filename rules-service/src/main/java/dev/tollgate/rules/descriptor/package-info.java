/**
 * Envoy's descriptor mappings, over HTTP and in their table: per domain, read, create or replace under
 * {@code If-Match}, delete. A mapping is validated against the stored rules in the transaction that
 * stores it (422 {@code invalid_descriptors}), and rules it names cannot be deleted or moved out from
 * under it.
 */
package dev.tollgate.rules.descriptor;
