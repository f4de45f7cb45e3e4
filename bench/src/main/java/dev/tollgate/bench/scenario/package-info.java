/**
 * The six scenarios of the report, each running every contender side by side in one run: the design's
 * per-pod table, the hot key, the traffic mix, overshoot near the limit, open-loop latency, and the peers.
 */
package dev.tollgate.bench.scenario;
