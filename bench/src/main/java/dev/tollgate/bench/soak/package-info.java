/**
 * The soak (scenario 10): two check-service pods from the packaged jar on a Redis Cluster with replicas, a steady
 * mixed load for half an hour with a fault every few minutes, and each pod's heap after GC, threads, file
 * descriptors, connections and store calls sampled over time and judged flat or growing ({@link dev.tollgate.bench.soak.Drift}).
 */
package dev.tollgate.bench.soak;
