/**
 * Which keys and slots take the pod's store calls: found before a primary's latency shows them, so a hot key can be
 * moved to a primary of its own (docs/runbooks.md) before it hurts.
 */
package dev.tollgate.limiter.hotkeys;
