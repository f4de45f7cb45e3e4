/**
 * Where a pod's admitted requests are counted for the budget rebalancer (one limit across regions):
 * {@link dev.tollgate.limiter.usage.UsageRecorder} counts in memory and writes once a second, off the
 * request path, into the per-window hashes that {@link dev.tollgate.store.key.UsageKeys} names.
 */
package dev.tollgate.limiter.usage;
