/**
 * The rebalancing rule and its bookkeeping, free of I/O: {@link dev.tollgate.rebalancer.budget.BudgetSplit}
 * turns one key's usage per region into shares, {@link dev.tollgate.rebalancer.budget.BudgetBook} decides
 * each cycle which keys' rows to write and which to delete.
 */
package dev.tollgate.rebalancer.budget;
