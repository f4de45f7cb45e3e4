/**
 * Where a pod's admitted requests are counted for the budget rebalancer (one limit across regions):
 * {@link dev.tollgate.limiter.usage.UsageRecorder} counts in memory and writes once a second, off the
 * request path, into the per-window hashes that {@link dev.tollgate.store.key.UsageKeys} names; and, sampled per
 * rule, every rule's checks and denials per key, which a simulation of another version of the rule replays.
 */
package dev.tollgate.limiter.usage;
