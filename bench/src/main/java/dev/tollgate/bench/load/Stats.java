package dev.tollgate.bench.load;

import java.util.Arrays;

/** Medians and spreads of small samples (per-second values of a run, repeats of a short run). */
public final class Stats {

    private Stats() {
    }

    public static double median(double[] values) {
        if (values.length == 0) {
            return Double.NaN;
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }

    public static double median(long[] values) {
        return median(Arrays.stream(values).asDoubleStream().toArray());
    }

    public static double min(double[] values) {
        return Arrays.stream(values).min().orElse(Double.NaN);
    }

    public static double max(double[] values) {
        return Arrays.stream(values).max().orElse(Double.NaN);
    }

    public static double min(long[] values) {
        return Arrays.stream(values).min().orElse(0);
    }

    public static double max(long[] values) {
        return Arrays.stream(values).max().orElse(0);
    }
}
