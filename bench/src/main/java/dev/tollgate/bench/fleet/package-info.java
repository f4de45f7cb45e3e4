/**
 * Simulated gateway pods: each Tollgate pod is its own limiter engine (its own leases, deny cache and
 * local buckets) on the one shared Redis Cluster; each baseline pod is a token bucket of its own slice
 * of the limit with no shared state. A fleet can scale out and restart pods during a run.
 */
package dev.tollgate.bench.fleet;
