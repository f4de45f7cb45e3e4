/**
 * The scenarios of the report, each running every contender side by side in one run: the design's per-pod
 * table, the hot key, the traffic mix, overshoot near the limit, open-loop latency, the peers, refunds, and
 * check-service over real sockets against a bare server (the floor). {@link dev.tollgate.bench.scenario.Scenarios}
 * lists every scenario of the report by number, the scale and soak scenarios of their own packages too.
 */
package dev.tollgate.bench.scenario;
