package dev.tollgate.rebalancer.budget;

import dev.tollgate.common.rule.AccountOverride;
import dev.tollgate.common.rule.Rule;

import java.util.List;
import java.util.Map;

/**
 * The rules store as one read saw it.
 *
 * @param revision the store revision the read saw
 * @param rules    every rule that exists (a budget row must name one), with its identity and limit: which
 *                 rules are split across regions is theirs to say ({@link Rule#regionBudgeted()})
 * @param overrides every account override, expired or not: an active one is the key's limit, as on the pods
 * @param shares   each key's shares in {@link BudgetSplit#regions()} order; NaN where a region has no row
 */
public record StoredBudgets(long revision, List<Rule> rules, List<AccountOverride> overrides, Map<BudgetKey, double[]> shares) {
}
