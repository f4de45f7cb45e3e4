package dev.tollgate.bench.soak;

import dev.tollgate.bench.load.Stats;

import java.util.ArrayList;
import java.util.List;

/**
 * Whether a series sampled over a soak is flat or growing: the median of its last third against the median of its
 * first third, samples before the warm-up's end left out. Medians, so that a fault's spike (reconnects, a failover's
 * extra connections) inside a third moves neither; thirds by sample count, so a gap in the sampling does not weigh.
 * The change must stay within a tolerance of its own per series: at least an absolute amount, or a share of the first
 * third's median, whichever is larger ({@link Tolerance}).
 */
public final class Drift {

    /** The fewest samples a third needs for a verdict. */
    static final int MIN_PER_THIRD = 2;

    /** How much a series may move between its first and last third and still be flat. */
    public record Tolerance(double absolute, double relative) {

        public Tolerance {
            if (absolute < 0 || relative < 0) {
                throw new IllegalArgumentException("a tolerance is not negative: " + absolute + ", " + relative);
            }
        }

        public double of(double base) {
            return Math.max(absolute, relative * Math.abs(base));
        }
    }

    public enum Verdict {
        FLAT("flat"), GROWING("**growing**"), NOT_JUDGED("not judged"),
        /** A series given no tolerance: its thirds are shown, no verdict is given. */
        SHOWN("–");

        public final String label;

        Verdict(String label) {
            this.label = label;
        }
    }

    /**
     * @param samples     how many samples were judged (after the warm-up)
     * @param change      last third's median less the first's
     * @param perHour     the least-squares slope of the judged samples, per hour (for the report; not the verdict)
     */
    public record Judgement(Verdict verdict, int samples, double firstMedian, double lastMedian, double change, double tolerance,
                            double max, double perHour) {

        static Judgement notJudged(int samples) {
            return new Judgement(Verdict.NOT_JUDGED, samples, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
        }
    }

    private Drift() {
    }

    /**
     * @param seconds when each value was sampled, ascending
     * @param values  the series; NaN values (a sample that failed) are left out
     * @param from    samples before this second are the warm-up
     * @param tolerance null: the thirds are compared and shown, without a verdict
     */
    public static Judgement judge(double[] seconds, double[] values, double from, Tolerance tolerance) {
        if (seconds.length != values.length) {
            throw new IllegalArgumentException(seconds.length + " times for " + values.length + " values");
        }
        List<double[]> kept = new ArrayList<>();
        for (int i = 0; i < values.length; i++) {
            if (seconds[i] >= from && !Double.isNaN(values[i])) {
                kept.add(new double[] {seconds[i], values[i]});
            }
        }
        int n = kept.size();
        int third = n / 3;
        if (third < MIN_PER_THIRD) {
            return Judgement.notJudged(n);
        }
        double[] first = new double[third];
        double[] last = new double[third];
        double max = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            max = Math.max(max, kept.get(i)[1]);
        }
        for (int i = 0; i < third; i++) {
            first[i] = kept.get(i)[1];
            last[i] = kept.get(n - third + i)[1];
        }
        double firstMedian = Stats.median(first);
        double lastMedian = Stats.median(last);
        double change = lastMedian - firstMedian;
        double allowed = tolerance == null ? Double.NaN : tolerance.of(firstMedian);
        Verdict verdict = tolerance == null ? Verdict.SHOWN : change > allowed ? Verdict.GROWING : Verdict.FLAT;
        return new Judgement(verdict, n, firstMedian, lastMedian, change, allowed, max,
                slope(kept) * 3600);
    }

    /** Least squares over (seconds, value) pairs, per second. */
    static double slope(List<double[]> points) {
        double n = points.size();
        double sx = 0;
        double sy = 0;
        for (double[] p : points) {
            sx += p[0];
            sy += p[1];
        }
        double mx = sx / n;
        double my = sy / n;
        double num = 0;
        double den = 0;
        for (double[] p : points) {
            num += (p[0] - mx) * (p[1] - my);
            den += (p[0] - mx) * (p[0] - mx);
        }
        return den == 0 ? 0 : num / den;
    }
}
