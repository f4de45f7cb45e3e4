/**
 * The port to the rules store in PostgreSQL: plain SQL through {@code JdbcClient}, mapped straight to
 * the immutable records in {@code common}. The change log lives here too, because a change is only
 * complete with its history row and its store revision, written in the caller's transaction.
 */
package dev.tollgate.rules.store;
