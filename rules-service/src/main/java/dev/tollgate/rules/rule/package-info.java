/**
 * Rules, over HTTP and in their table: read, create or replace under {@code If-Match}, delete, switch
 * between shadow and enforce, roll a change out as a canary (promoted or rolled back under its own
 * version), and read a rule's audit history. Every write is validated by the shared validator first.
 */
package dev.tollgate.rules.rule;
