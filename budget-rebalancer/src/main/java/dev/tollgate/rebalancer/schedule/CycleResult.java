package dev.tollgate.rebalancer.schedule;

import dev.tollgate.rebalancer.budget.Plan;
import dev.tollgate.rebalancer.metrics.RebalancerMetrics.Outcome;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What one cycle did, for logs, tests and the benchmark.
 *
 * @param windowStart  the usage window read (epoch seconds); 0 on standby
 * @param keysWithUsage keys that had usage in a reachable region
 * @param plan         what was decided; empty on standby or failure
 * @param read         time to read every region's window
 * @param compute      time to load (when needed) and plan
 * @param write        time of the write transaction (zero when nothing changed)
 */
public record CycleResult(Outcome outcome, long windowStart, int keysWithUsage, int unreachable, Plan plan,
                          Duration read, Duration compute, Duration write) {

    static final Plan NOTHING = new Plan(Map.of(), List.of(), 0, Plan.Skipped.NONE, 0);

    static CycleResult standby() {
        return new CycleResult(Outcome.STANDBY, 0, 0, 0, NOTHING, Duration.ZERO, Duration.ZERO, Duration.ZERO);
    }

    public Duration total() {
        return read.plus(compute).plus(write);
    }
}
