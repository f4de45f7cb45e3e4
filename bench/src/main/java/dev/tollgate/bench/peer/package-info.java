/**
 * The limiters Tollgate is compared with on the same cluster in the same run: Bucket4j's Lettuce
 * backend, Spring Cloud Gateway's RedisRateLimiter script (re-implemented from its semantics) and a
 * plain INCR+EXPIRE fixed window; and Tollgate itself as one pod. Each counts its own store calls.
 */
package dev.tollgate.bench.peer;
