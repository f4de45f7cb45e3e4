/**
 * budget-rebalancer: every 10 s, each key's share of its limit per region, from the usage the regions'
 * pods reported; one active instance among many, under a PostgreSQL advisory lock.
 */
package dev.tollgate.rebalancer;
