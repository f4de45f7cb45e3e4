/**
 * Region budgets, each region's share of a key's limit: budget-rebalancer writes them, and here they are
 * only read, into the watch feed and into a key's usage.
 */
package dev.tollgate.rules.budget;
