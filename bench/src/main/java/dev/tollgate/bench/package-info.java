/**
 * The multi-pod benchmark: simulated gateway pods (limiter engines in one JVM) on a real Redis Cluster,
 * the per-pod-local baseline and the peers side by side in one run, written up as a Markdown report.
 */
package dev.tollgate.bench;
