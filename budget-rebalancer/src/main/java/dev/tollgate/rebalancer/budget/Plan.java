package dev.tollgate.rebalancer.budget;

import java.util.List;
import java.util.Map;

/**
 * What one cycle changes in region_budgets, written in one transaction.
 *
 * @param writes     keys whose shares changed, with every region's new share (region order)
 * @param resets     idle keys that go back to the default split: their rows are deleted
 * @param rebalanced keys with usage whose shares were computed (changed or not)
 * @param skipped    keys with usage whose shares were not computed, by why
 * @param deferred   keys whose change waits for a later cycle: over the cycle's write limit
 */
public record Plan(Map<BudgetKey, double[]> writes, List<BudgetKey> resets, int rebalanced, Skipped skipped, int deferred) {

    public boolean changesNothing() {
        return writes.isEmpty() && resets.isEmpty();
    }

    /**
     * @param unknownRule  under a rule that does not exist (a budget row must name one)
     * @param defaultSplit under a rule whose keys keep the default split: keys a caller chooses, such as
     *                     an IP, or a sliding log ({@link dev.tollgate.common.rule.Rule#regionBudgeted()});
     *                     only pods from before that rule, or other writers, report them
     * @param belowMinimum used less than the minimum share of its limit in the window: the default split
     *                     serves it, since every region's share is at least the floor, which is at least that
     */
    public record Skipped(int unknownRule, int defaultSplit, int belowMinimum) {

        public static final Skipped NONE = new Skipped(0, 0, 0);
    }
}
