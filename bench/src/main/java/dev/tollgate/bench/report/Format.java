package dev.tollgate.bench.report;

import java.util.Locale;

/** How numbers read in the tables: thousands separated, rates per second, signed percentages. */
public final class Format {

    private Format() {
    }

    public static String count(double value) {
        if (Double.isNaN(value)) {
            return "–";
        }
        return String.format(Locale.ROOT, "%,.0f", value);
    }

    public static String rate(double perSecond) {
        if (Double.isNaN(perSecond)) {
            return "–";
        }
        return perSecond < 10 ? String.format(Locale.ROOT, "%.1f/s", perSecond) : String.format(Locale.ROOT, "%,.0f/s", perSecond);
    }

    /** {@code fraction} 0.04 reads "4.0%". */
    public static String percent(double fraction) {
        if (Double.isNaN(fraction) || Double.isInfinite(fraction)) {
            return "–";
        }
        return String.format(Locale.ROOT, "%.1f%%", fraction * 100);
    }

    public static String signedPercent(double fraction) {
        if (Double.isNaN(fraction) || Double.isInfinite(fraction)) {
            return "–";
        }
        return String.format(Locale.ROOT, "%+.1f%%", fraction * 100);
    }

    public static String ratio(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return "–";
        }
        return String.format(Locale.ROOT, value < 10 ? "%.2f" : "%,.0f", value);
    }

    /** A duration in seconds: whole above 10 s, one decimal below. */
    public static String seconds(double seconds) {
        return String.format(Locale.ROOT, seconds < 10 ? "%.1f s" : "%.0f s", seconds);
    }

    public static String millis(double nanos) {
        if (Double.isNaN(nanos)) {
            return "–";
        }
        double ms = nanos / 1e6;
        return String.format(Locale.ROOT, ms < 10 ? "%.3f ms" : "%,.1f ms", ms);
    }
}
