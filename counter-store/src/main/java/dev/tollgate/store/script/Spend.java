package dev.tollgate.store.script;

import dev.tollgate.common.rule.Limit;
import dev.tollgate.common.rule.Rule;

/**
 * One rule's share of a script call: the rule as it applies to this key (override included), the
 * region's share of its limit, and the cost this request spends on it: 0 only looks (the limit must hold one
 * more request, and nothing is spent).
 */
public record Spend(Rule rule, double share, int cost) {

    public Spend {
        if (!(share > 0 && share <= 1)) {
            throw new IllegalArgumentException("share must be in (0, 1], was " + share);
        }
        if (cost < 0) {
            throw new IllegalArgumentException("cost must be at least 0, was " + cost);
        }
    }

    /** The region's share of this rule's steady rate, in requests per second, whatever the algorithm. */
    public double tokensPerSecond() {
        return rule.limit().perSecond() * share;
    }

    /** The region's share of what this rule admits at once: the burst, or the count per window. */
    public double capacity() {
        return rule.limit().capacity() * share;
    }

    /** Milli-tokens per period: the region's share of the rate, never rounded down to no refill at all. */
    public long refillMilli() {
        return Math.max(1, Math.round(bucket().ratePerS() * 1000.0 * share));
    }

    public long periodMs() {
        return bucket().periodS() * 1000L;
    }

    /**
     * Capacity in milli-tokens: the region's share of the burst, but always room for one request of
     * this cost, and never more than the rule's whole burst, whatever a request asks for.
     */
    public long burstMilli() {
        long whole = bucket().burst() * 1000L;
        return Math.min(whole, Math.max(cost * 1000L, Math.round(whole * share)));
    }

    /** Count per window: the region's share of the limit, but always room for one request, never above the rule's limit. */
    public long limit() {
        int limit = countPerWindow().limit();
        return Math.min(limit, Math.max(cost, Math.round(limit * share)));
    }

    public long windowMs() {
        return countPerWindow().windowS() * 1000L;
    }

    /** A key group holds one algorithm, so a script builder only ever asks a spend for its own numbers. */
    private Limit.TokenBucket bucket() {
        if (rule.limit() instanceof Limit.TokenBucket bucket) {
            return bucket;
        }
        throw new IllegalStateException("rule " + rule.id() + " is a " + rule.algorithm() + ", not a token bucket");
    }

    private Limit.CountPerWindow countPerWindow() {
        if (rule.limit() instanceof Limit.CountPerWindow count) {
            return count;
        }
        throw new IllegalStateException("rule " + rule.id() + " is a " + rule.algorithm() + ", not a count per window");
    }
}
