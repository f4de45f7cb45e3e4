/**
 * The chaos suite of issue 11: check-service pods under faults done to real {@code redis-server} processes and to
 * their rules source, with every request sent recorded and held to the check path's invariants ({@link
 * dev.tollgate.check.chaos.Ledger}).
 */
package dev.tollgate.check.chaos;
