/**
 * Reading the usage the pods report: one closed window from every region's Redis Cluster, through the
 * counter store's read port ({@link dev.tollgate.store.read.CounterReads#usageWindow}).
 */
package dev.tollgate.rebalancer.usage;
