package dev.tollgate.rebalancer.budget;

import java.util.List;
import java.util.Map;

/**
 * What one cycle changes in region_budgets, written in one transaction.
 *
 * @param writes     keys whose shares changed, with every region's new share (region order)
 * @param resets     idle keys that go back to the default split: their rows are deleted
 * @param rebalanced keys with usage whose shares were computed (changed or not)
 * @param skipped    keys with usage under a rule that does not exist (a budget row must name a rule)
 * @param deferred   keys whose change waits for a later cycle: over the cycle's write limit
 */
public record Plan(Map<BudgetKey, double[]> writes, List<BudgetKey> resets, int rebalanced, int skipped, int deferred) {

    public boolean changesNothing() {
        return writes.isEmpty() && resets.isEmpty();
    }
}
