/** How many pods serve the region right now: the divisor of leases and fallback buckets, kept live by heartbeats. */
package dev.tollgate.limiter.pods;
