/** Token buckets kept in a pod's memory: the fallback while a shard is unreachable, and the coarse local-first bucket. */
package dev.tollgate.limiter.local;
