package dev.tollgate.rebalancer.budget;

import java.util.ArrayList;
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
        long[] micros = new long[n];
        List<Integer> free = new ArrayList<>(n);
        long available = WHOLE;
        for (int i = 0; i < n; i++) {
            if (kept == null || Double.isNaN(kept[i])) {
                free.add(i);
            } else {
                micros[i] = Math.round(kept[i] * WHOLE);
                available -= micros[i];
            }
        }
        if (free.isEmpty()) {
            throw new IllegalArgumentException("at least one region's share must be computed");
        }
        if (available < free.size()) {
            return null;
        }
        long[] weights = weights(observed, free);
        // kept shares written under another floor may leave less than a floor each for the others
        long least = Math.min(floor, available / free.size());
        boolean[] raised = new boolean[n];
        long remaining = available;
        long total = 0;
        List<Integer> unraised = new ArrayList<>(free);
        while (true) {
            total = 0;
            for (int i : unraised) {
                total += weights[i];
            }
            List<Integer> below = new ArrayList<>();
            for (int i : unraised) {
                // share_i = remaining * w_i / total, compared without dividing
                if (total == 0 || remaining * weights[i] < least * total) {
                    below.add(i);
                }
            }
            if (below.isEmpty() || below.size() == unraised.size()) {
                break;
            }
            for (int i : below) {
                raised[i] = true;
                micros[i] = least;
                remaining -= least;
            }
            unraised.removeAll(below);
        }
        if (total == 0) {
            // nothing left to weigh by (cannot happen with positive defaults): split the rest evenly
            Arrays.fill(weights, 1);
            total = unraised.size();
        }
        allocate(remaining, weights, total, unraised, micros);
        return toShares(micros);
    }

    /** Usage as weights; with no usage at all, the default split's. Scaled so products stay exact. */
    private long[] weights(long[] observed, List<Integer> free) {
        long[] weights = new long[observed.length];
        long max = 0;
        for (int i : free) {
            weights[i] = Math.max(0, observed[i]);
            max = Math.max(max, weights[i]);
        }
        if (max == 0) {
            for (int i : free) {
                weights[i] = defaults[i];
            }
            return weights;
        }
        if (max > MAX_WEIGHT) {
            long divisor = max / MAX_WEIGHT + 1;
            for (int i : free) {
                weights[i] /= divisor;
            }
        }
        return weights;
    }

    /** Largest remainders: each gets the floor of its exact share, the odd millionths go to the largest fractions. */
    private static void allocate(long amount, long[] weights, long total, List<Integer> among, long[] micros) {
        long given = 0;
        long[] remainders = new long[weights.length];
        for (int i : among) {
            long product = amount * weights[i];
            micros[i] = product / total;
            remainders[i] = product % total;
            given += micros[i];
        }
        List<Integer> byRemainder = new ArrayList<>(among);
        byRemainder.sort((a, b) -> remainders[a] != remainders[b] ? Long.compare(remainders[b], remainders[a]) : Integer.compare(a, b));
        for (int k = 0; given < amount; k++) {
            micros[byRemainder.get(k % byRemainder.size())]++;
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
