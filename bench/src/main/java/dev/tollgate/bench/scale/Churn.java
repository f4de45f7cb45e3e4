package dev.tollgate.bench.scale;

import java.util.List;

/**
 * The scenario's traffic, key by key and cycle by cycle: every key has usage in every region in every
 * window, and in each cycle one group of keys ({@value #GROUPS} groups, so 5%) swaps its two heavier regions,
 * which moves those keys' shares by 35 points, far past the rebalancer's min-change; the other 95% keep the
 * split they had, so the rebalancer reads every key and rewrites exactly one group per cycle.
 *
 * <p>Usage is in the proportions 15/25/60 (or 15/60/25 swapped) of {@link #REGIONS}, all above the 10% floor,
 * so the split the rebalancer computes is exactly those proportions, and the budget rows seeded before the
 * first cycle ({@link #seededShares}) are what it would have computed for cycle -1: nothing else moves.
 */
final class Churn {

    /** In the order the rebalancer sorts them (by name), which is the order of every array here. */
    static final List<String> REGIONS = List.of("ap-south", "eu-west", "us-east");
    /** The pods' and rebalancer's default split. */
    static final double[] DEFAULT_SHARES = {0.15, 0.25, 0.60};
    static final int GROUPS = 20;
    /** Rules the keys are spread over: budgets of several route rules, as the design's keys are. */
    static final List<String> RULES = List.of("scale-labels", "scale-rates", "scale-shipments", "scale-tracking");

    private static final long[] STEADY = {15, 25, 60};
    private static final long[] SWAPPED = {15, 60, 25};

    private final int keys;

    Churn(int keys) {
        if (keys < RULES.size()) {
            throw new IllegalArgumentException("at least " + RULES.size() + " keys, was " + keys);
        }
        this.keys = keys;
    }

    int keys() {
        return keys;
    }

    static String rule(int key) {
        return RULES.get(key % RULES.size());
    }

    /** The account a key counts; several rules share an account, as a pod's route budgets do. */
    static String limitKey(int key) {
        return "acct_" + (key / RULES.size());
    }

    /** Keys that change their split in {@code cycle}: about 1 in {@value #GROUPS}. */
    static boolean moves(int key, int cycle) {
        return Math.floorMod(key, GROUPS) == Math.floorMod(cycle, GROUPS);
    }

    /** Whether a key is on its swapped split in a cycle: it has swapped an odd number of times in cycles 0..cycle. */
    static boolean swapped(int key, int cycle) {
        int group = Math.floorMod(key, GROUPS);
        int swaps = cycle < group ? 0 : (cycle - group) / GROUPS + 1;
        return swaps % 2 == 1;
    }

    /** The cost a key admitted in each region in a cycle's window; scaled per key so keys are not all alike. */
    static long[] usage(int key, int cycle) {
        long[] proportions = swapped(key, cycle) ? SWAPPED : STEADY;
        long scale = 1 + Math.floorMod(key, 7);
        return new long[] {proportions[0] * scale, proportions[1] * scale, proportions[2] * scale};
    }

    /** The shares of a key before cycle 0: its steady split. */
    static double[] seededShares() {
        return new double[] {STEADY[0] / 100.0, STEADY[1] / 100.0, STEADY[2] / 100.0};
    }
}
