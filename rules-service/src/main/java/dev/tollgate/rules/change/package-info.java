/**
 * What every write shares, whichever feature makes it: the store lock and revision, and the history row
 * each change records ({@link dev.tollgate.rules.change.ChangeLog}), written in the caller's transaction
 * because a change is only complete with both; and how a value meets its column in every table.
 */
package dev.tollgate.rules.change;
