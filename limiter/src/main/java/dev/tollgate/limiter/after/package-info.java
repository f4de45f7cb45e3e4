/**
 * Count after: rules with {@code counting: after} are admitted from the pod's own flags and counted in the store
 * asynchronously, in batches per shard ({@link dev.tollgate.limiter.after.CountAfter}).
 */
package dev.tollgate.limiter.after;
