/**
 * A Redis Cluster of one node on loopback that answers Tollgate's scripts from the in-memory store
 * ({@link dev.tollgate.store.loopback.LoopbackCluster}): what a starting pod warms its path to Redis on, without
 * touching the region's counters.
 */
package dev.tollgate.store.loopback;
