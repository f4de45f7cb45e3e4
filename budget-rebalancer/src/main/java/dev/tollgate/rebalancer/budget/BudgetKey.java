package dev.tollgate.rebalancer.budget;

/** One key's limit under one rule: what a set of region shares belongs to (a region_budgets row without its region). */
public record BudgetKey(String ruleId, String limitKey) {
}
