package dev.tollgate.rules.usage;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.tollgate.common.rule.AccountOverride;
import dev.tollgate.common.rule.Algorithm;
import dev.tollgate.common.rule.Mode;
import dev.tollgate.common.rule.RegionBudget;

import java.time.Instant;
import java.util.List;

/**
 * The answer of {@code GET /v1/keys/{key}/usage}.
 *
 * @param readAt        the counter store's clock when it was read
 * @param limits        one entry per rule (of the domain, when asked for one)
 * @param overrides     the key's active overrides, as account id
 * @param regionBudgets every region's share of the key's limits
 */
public record KeyUsage(
        String key,
        String region,
        Instant readAt,
        List<Limit> limits,
        List<AccountOverride> overrides,
        List<RegionBudget> regionBudgets) {

    /**
     * What is left of one rule's limit for the key in this region, with its override and share applied.
     *
     * @param redisKey       where the state lives
     * @param stored         false when no state exists: a bucket never used (or expired because full), an empty log
     * @param tokens         token_bucket: whole tokens in the bucket now (refilled to the store's clock)
     * @param capacity       token_bucket: the bucket's size here (burst × share); sliding_log/fixed_window: the count allowed
     * @param count          sliding_log/fixed_window: what was counted in the current window
     * @param remaining      what one more request could still spend
     * @param window         fixed_window: the window's name, e.g. 2026-09-30
     * @param share          this region's share of the rule's limit for the key (1 without a budget)
     * @param overridden     true when an account override replaced rate and burst
     * @param recentRatePerS requests per second this region admitted for the key under this rule in the
     *                       last closed 10 s usage window (what the pods report and the rebalancer reads)
     */
    public record Limit(
            String ruleId,
            String domain,
            Algorithm algorithm,
            Mode mode,
            String redisKey,
            boolean stored,
            Long tokens,
            long capacity,
            Long count,
            long remaining,
            Integer ratePerS,
            Integer periodS,
            Integer windowS,
            String window,
            double share,
            boolean overridden,
            @JsonInclude(JsonInclude.Include.ALWAYS) Double recentRatePerS) {
    }
}
