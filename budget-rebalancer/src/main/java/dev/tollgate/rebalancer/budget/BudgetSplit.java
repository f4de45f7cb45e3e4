package dev.tollgate.rebalancer.budget;

import java.util.Arrays;
import java.util.List;

/**
 * The design's rule for one key's region shares ("One limit, three regions"): raise any region under
 * the floor to the floor, and split the rest in proportion to the usage each region observed; with no
 * usage at all, the default split. 70/30/0 with a 10% floor gives 63/27/10.
 *
 * <p>Shares are computed in millionths of the limit, integers that sum to exactly one million (largest
 * remainders get the odd millionths), then turned into doubles; the last region takes one minus the
 * sum of the others, so the doubles summed in region order are exactly 1.0 and a pod never holds a
 * split that admits more than the limit. A region whose usage could not be read keeps the share it
 * has, and the others split what is left by the same rule.
 *
 * <p>"Raise to the floor" is applied until it holds: lifting one region takes from the others, which
 * can push another below the floor (a water-filling loop, at most one round per region). A region raised
 * once stays raised, because taking from the others only ever lowers their shares.
 */
public final class BudgetSplit {

    /** One whole limit in millionths. */
    static final long WHOLE = 1_000_000;
    /** Usage weights are scaled below this so every product stays exact in a long. */
    private static final long MAX_WEIGHT = 1_000_000_000L;

    private final List<String> regions;
    private final long[] defaults;
    private final long floor;

    /**
     * @param regions       the regions, in the order shares are given and returned
     * @param defaultShares each region's share of a key that has no usage: the default split, summing to 1
     * @param floor         the least share a region gets, in (0, 1 / regions]
     */
    public BudgetSplit(List<String> regions, double[] defaultShares, double floor) {
        if (regions.isEmpty()) {
            throw new IllegalArgumentException("tollgate.regions: name at least one region");
        }
        if (defaultShares.length != regions.size()) {
            throw new IllegalArgumentException("one default share per region: " + regions + " but " + Arrays.toString(defaultShares));
        }
        if (!(floor > 0) || floor * regions.size() > 1 + 1e-9) {
            throw new IllegalArgumentException("tollgate.rebalancer.floor must be above 0 and at most 1 / regions ("
                    + (1.0 / regions.size()) + " for " + regions.size() + " regions), so every region can hold it; was " + floor);
        }
        long[] micros = new long[regions.size()];
        long sum = 0;
        for (int i = 0; i < micros.length; i++) {
            if (!(defaultShares[i] > 0 && defaultShares[i] <= 1)) {
                throw new IllegalArgumentException("tollgate.regions." + regions.get(i) + ".default-share must be in (0, 1], was " + defaultShares[i]);
            }
            if (defaultShares[i] < floor - 1e-9) {
                throw new IllegalArgumentException("tollgate.regions." + regions.get(i) + ".default-share (" + defaultShares[i]
                        + ") is below tollgate.rebalancer.floor (" + floor + "): a key without a budget would give that region less than the floor");
            }
            micros[i] = Math.round(defaultShares[i] * WHOLE);
            sum += micros[i];
        }
        if (sum != WHOLE) {
            throw new IllegalArgumentException("the default shares (tollgate.regions.<region>.default-share) must sum to 1, "
                    + "as the pods' default shares do; they sum to " + (sum / (double) WHOLE) + ": " + describe(regions, defaultShares));
        }
        this.regions = List.copyOf(regions);
        this.defaults = micros;
        this.floor = Math.round(Math.min(floor, 1.0 / regions.size()) * WHOLE);
    }

    public List<String> regions() {
        return regions;
    }

    public int size() {
        return regions.size();
    }

    /** The least share any region gets, as a fraction of the limit. */
    public double floor() {
        return floor / (double) WHOLE;
    }

    /** The default split as doubles, summing to exactly 1.0 in region order. */
    public double[] defaultShares() {
        return toShares(defaults.clone());
    }

    /** Every region's usage was read: the shares for usage {@code observed}, one count per region. */
    public double[] split(long[] observed) {
        return split(observed, null);
    }

    /**
     * @param observed cost admitted per region in the window (ignored for a region with a kept share)
     * @param kept     per region, the share it keeps because its usage could not be read, or NaN to
     *                 compute its share; null to compute every region's
     * @return shares in region order, summing to exactly 1.0; null when the kept shares leave the other
     *         regions no room (at least a millionth each), which only broken rows can cause
     */
    public double[] split(long[] observed, double[] kept) {
        int n = regions.size();
        if (observed.length != n || (kept != null && kept.length != n)) {
            throw new IllegalArgumentException("one count and one kept share per region " + regions);
        }
        // arrays of region indices, not lists of boxed ones: this runs once per key, a million times a cycle
        long[] micros = new long[n];
        int[] free = new int[n];
        int freeCount = 0;
        long available = WHOLE;
        for (int i = 0; i < n; i++) {
            if (kept == null || Double.isNaN(kept[i])) {
                free[freeCount++] = i;
            } else {
                micros[i] = Math.round(kept[i] * WHOLE);
                available -= micros[i];
            }
        }
        if (freeCount == 0) {
            throw new IllegalArgumentException("at least one region's share must be computed");
        }
        if (available < freeCount) {
            return null;
        }
        long[] weights = weights(observed, free, freeCount);
        // kept shares written under another floor may leave less than a floor each for the others
        long least = Math.min(floor, available / freeCount);
        long remaining = available;
        long total;
        int[] unraised = Arrays.copyOf(free, freeCount);
        int unraisedCount = freeCount;
        while (true) {
            total = 0;
            for (int k = 0; k < unraisedCount; k++) {
                total += weights[unraised[k]];
            }
            int below = 0;
            for (int k = 0; k < unraisedCount; k++) {
                // share_i = remaining * w_i / total, compared without dividing
                int i = unraised[k];
                if (total == 0 || remaining * weights[i] < least * total) {
                    below++;
                }
            }
            if (below == 0 || below == unraisedCount) {
                break;
            }
            int stillUnraised = 0;
            long before = remaining;
            for (int k = 0; k < unraisedCount; k++) {
                int i = unraised[k];
                if (total == 0 || before * weights[i] < least * total) {
                    micros[i] = least;
                    remaining -= least;
                } else {
                    unraised[stillUnraised++] = i;
                }
            }
            unraisedCount = stillUnraised;
        }
        if (total == 0) {
            // nothing left to weigh by (cannot happen with positive defaults): split the rest evenly
            Arrays.fill(weights, 1);
            total = unraisedCount;
        }
        allocate(remaining, weights, total, unraised, unraisedCount, micros);
        return toShares(micros);
    }

    /** Usage as weights; with no usage at all, the default split's. Scaled so products stay exact. */
    private long[] weights(long[] observed, int[] free, int freeCount) {
        long[] weights = new long[observed.length];
        long max = 0;
        for (int k = 0; k < freeCount; k++) {
            int i = free[k];
            weights[i] = Math.max(0, observed[i]);
            max = Math.max(max, weights[i]);
        }
        if (max == 0) {
            for (int k = 0; k < freeCount; k++) {
                weights[free[k]] = defaults[free[k]];
            }
            return weights;
        }
        if (max > MAX_WEIGHT) {
            long divisor = max / MAX_WEIGHT + 1;
            for (int k = 0; k < freeCount; k++) {
                weights[free[k]] /= divisor;
            }
        }
        return weights;
    }

    /** Largest remainders: each gets the floor of its exact share, the odd millionths go to the largest fractions. */
    private static void allocate(long amount, long[] weights, long total, int[] among, int count, long[] micros) {
        long given = 0;
        long[] remainders = new long[weights.length];
        for (int k = 0; k < count; k++) {
            int i = among[k];
            long product = amount * weights[i];
            micros[i] = product / total;
            remainders[i] = product % total;
            given += micros[i];
        }
        // largest remainder first, the lower region index on a tie (an insertion sort: a handful of regions)
        int[] byRemainder = Arrays.copyOf(among, count);
        for (int k = 1; k < count; k++) {
            int region = byRemainder[k];
            int j = k - 1;
            while (j >= 0 && (remainders[byRemainder[j]] < remainders[region]
                    || (remainders[byRemainder[j]] == remainders[region] && byRemainder[j] > region))) {
                byRemainder[j + 1] = byRemainder[j];
                j--;
            }
            byRemainder[j + 1] = region;
        }
        for (int k = 0; given < amount; k++) {
            micros[byRemainder[k % count]]++;
            given++;
        }
    }

    /** Millionths summing to one million, as doubles summing to exactly 1.0 in region order. */
    private static double[] toShares(long[] micros) {
        int n = micros.length;
        double[] shares = new double[n];
        double sum = 0;
        for (int i = 0; i < n - 1; i++) {
            shares[i] = micros[i] / (double) WHOLE;
            sum += shares[i];
        }
        // for any sum in [0, 1], sum + (1 - sum) rounds to exactly 1.0
        shares[n - 1] = 1.0 - sum;
        return shares;
    }

    /** A share in millionths, for comparing shares without floating-point noise. */
    public static long micros(double share) {
        return Math.round(share * WHOLE);
    }

    private static String describe(List<String> regions, double[] shares) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < regions.size(); i++) {
            text.append(i == 0 ? "" : ", ").append(regions.get(i)).append('=').append(shares[i]);
        }
        return text.toString();
    }
}
