/**
 * A pod's view of each counter shard (the design's "A pod's view of one counter shard"): global checks
 * until the third timeout in a row, then fallback for a second, then one probe. Built on Resilience4j.
 */
package dev.tollgate.limiter.breaker;
