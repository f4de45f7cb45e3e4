/**
 * The control path's read port to the counter store ({@link dev.tollgate.store.read.CounterReads}): levels and
 * counts in the engine's own layout and arithmetic, so that rules-service and the budget rebalancer name no
 * key and copy no script.
 */
package dev.tollgate.store.read;
