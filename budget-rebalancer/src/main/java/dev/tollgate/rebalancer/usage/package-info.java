/**
 * Reading the usage the pods report: one closed window from every region's Redis Cluster, in the layout
 * of {@link dev.tollgate.limiter.usage.UsageKeys}.
 */
package dev.tollgate.rebalancer.usage;
