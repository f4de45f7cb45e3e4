package dev.tollgate.rebalancer.budget;

import java.util.Map;
import java.util.Set;

/**
 * The rules store as one read saw it.
 *
 * @param revision the store revision the read saw
 * @param ruleIds  every rule that exists: a budget row must name one
 * @param shares   each key's shares in {@link BudgetSplit#regions()} order; NaN where a region has no row
 */
public record StoredBudgets(long revision, Set<String> ruleIds, Map<BudgetKey, double[]> shares) {
}
