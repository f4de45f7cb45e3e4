/**
 * The answers a pod gives without a store call (the design's "Optimizations"): the deny cache, token
 * leases and the coarse local-first bucket, plus the bucket type they and the fallback share. Each is
 * bounded in memory (idle entries expire) and each can be switched off.
 */
package dev.tollgate.limiter.local;
