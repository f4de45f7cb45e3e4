package dev.tollgate.rules.usage;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
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
     * What is left of one rule's limit for the key in this region, with its override and share applied:
     * a bucket's tokens, or a log's or a window's count, each with what it alone holds.
     */
    public sealed interface Limit permits TokenBucket, SlidingLog, FixedWindow {

        Applied rule();
    }

    /**
     * The rule as the pods apply it to the key here.
     *
     * @param share          this region's share of the rule's limit for the key (1 without a budget)
     * @param overridden     true when an account override replaced rate and burst
     * @param recentRatePerS requests per second this region admitted for the key under this rule in the
     *                       last closed 10 s usage window (what the pods report and the rebalancer reads);
     *                       null (absent in JSON) for a rule whose limits are not split across regions (an {@code ip}
     *                       identity, a sliding log): pods do not report its usage, so none is known
     */
    public record Applied(String ruleId, String domain, Algorithm algorithm, Mode mode, double share, boolean overridden,
                          Double recentRatePerS) {
    }

    /**
     * @param redisKey  where the bucket lives
     * @param stored    false when there is no bucket: never used, or expired because it was full
     * @param tokens    whole tokens in the bucket now (refilled to the store's clock)
     * @param capacity  the bucket's size here (burst × share)
     * @param remaining what one more request could still spend: the tokens
     */
    public record TokenBucket(@JsonUnwrapped Applied rule, String redisKey, boolean stored, long tokens, long capacity,
                              long remaining, int ratePerS, int periodS) implements Limit {
    }

    /**
     * @param stored   false for an empty log
     * @param count    entries inside the window now
     * @param capacity the count allowed (limit × share)
     */
    public record SlidingLog(@JsonUnwrapped Applied rule, String redisKey, boolean stored, long count, long capacity,
                             long remaining, int windowS) implements Limit {
    }

    /**
     * @param window the current window's name, e.g. 2026-09-30
     * @param stored false while the window has counted nothing
     * @param count  what the window counted
     */
    public record FixedWindow(@JsonUnwrapped Applied rule, String redisKey, String window, boolean stored, long count,
                              long capacity, long remaining, int windowS) implements Limit {
    }
}
