package dev.tollgate.common.rule;

import java.time.Duration;

/**
 * How far a count-after rule's key may run over its limit, the figure the rules API shows with the rule. Between two
 * answers of its flushes a pod admits a key on its own at most its allowance, the rule's rate over one flush interval
 * (at least one request of the rule's largest cost); when the key goes over in the store, a pod has admitted at most
 * one allowance the store had not yet counted and one more while the answer was on its way. So a key seen by N pods
 * runs over by at most {@code N × overshootBoundPerPod}, in the rule's units (tokens, counts).
 *
 * @param flushMs              the pods' flush interval this bound is for ({@code tollgate.count-after.flush-interval})
 * @param allowancePerFlush    what one pod admits of a key on its own between two flush answers
 * @param overshootBoundPerPod {@code 2 × allowancePerFlush}
 */
public record CountAfterBound(long flushMs, long allowancePerFlush, long overshootBoundPerPod) {

    /** The bound of {@code rule} at its whole rate (a region's share of it lowers the allowance, never raises it). */
    public static CountAfterBound of(Rule rule, Duration flushInterval) {
        long allowance = allowance(rule.limit().perSecond(), rule.maxCost(), flushInterval);
        return new CountAfterBound(flushInterval.toMillis(), allowance, 2 * allowance);
    }

    /** One pod's allowance per flush answer: {@code max(cost, 1, ⌈unitsPerSecond × flush⌉)}. */
    public static long allowance(double unitsPerSecond, int cost, Duration flushInterval) {
        return Math.max(Math.max(1, cost), (long) Math.ceil(unitsPerSecond * flushInterval.toMillis() / 1000.0));
    }
}
