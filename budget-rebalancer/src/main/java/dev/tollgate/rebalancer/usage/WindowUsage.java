package dev.tollgate.rebalancer.usage;

import dev.tollgate.rebalancer.budget.BudgetKey;

import java.util.Map;

/**
 * One usage window as read from every region.
 *
 * @param windowStart the window, in epoch seconds
 * @param byKey       cost admitted per key, one count per region in the regions' order; only keys with
 *                    usage in a reachable region appear
 * @param reachable   per region, whether its usage was read (all of it: a region half read is unreachable)
 * @param fields      fields read, over all regions
 */
public record WindowUsage(long windowStart, Map<BudgetKey, long[]> byKey, boolean[] reachable, long fields) {

    public int unreachable() {
        int count = 0;
        for (boolean region : reachable) {
            count += region ? 0 : 1;
        }
        return count;
    }
}
