package dev.tollgate.common.rule;

import java.time.Instant;

/** The share of one key's limit that one region may spend; the shares of a key sum to 1.0. */
public record RegionBudget(String ruleId, String limitKey, String region, double share, Instant updatedAt) {
}
