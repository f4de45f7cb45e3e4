/**
 * The region's hot keys over all its pods ({@code GET /v1/hot-keys}): each check-service pod publishes its own top into
 * the counter store, and this merges them, for the console's page and the TollgateHotSlot runbook.
 */
package dev.tollgate.rules.hotkeys;
