/**
 * The rules store as the rebalancer uses it: the advisory lock that makes one instance active, and the
 * region_budgets rows it reads and writes over that lock's own connection.
 */
package dev.tollgate.rebalancer.store;
