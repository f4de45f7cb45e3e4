/**
 * What every write shares, whichever feature makes it: the store lock and the write under
 * {@code If-Match} ({@link dev.tollgate.rules.change.VersionedWrites}), and the history row and store
 * revision that each change records in its own transaction ({@link dev.tollgate.rules.change.ChangeLog}),
 * since a change is only complete with them. Also how a value meets its column, the same in every table.
 */
package dev.tollgate.rules.change;
