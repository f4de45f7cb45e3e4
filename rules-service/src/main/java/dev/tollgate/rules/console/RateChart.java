package dev.tollgate.rules.console;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;

/**
 * A small line chart of requests per second, one line per rule, as coordinates for an SVG the page
 * draws. Pure: the same samples give the same drawing, so it is tested without a browser.
 *
 * @param summary what the chart shows, in words, for a screen reader (and anyone who prefers reading)
 */
record RateChart(int width, int height, List<Line> lines, List<Tick> yTicks, List<Tick> xTicks, String summary) {

    static final int WIDTH = 640;
    static final int HEIGHT = 180;
    static final int LEFT = 48;
    static final int RIGHT = 12;
    static final int TOP = 10;
    static final int BOTTOM = 24;

    /** Distinct for the common kinds of colour blindness (Okabe-Ito), then repeated. */
    private static final List<String> COLOURS = List.of("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000");

    /** @param points the SVG polyline's points; {@code latest} the last value as text, for the legend */
    record Line(String ruleId, String colour, String points, String latest) {
    }

    record Tick(double at, String label) {
    }

    /**
     * @param windows window start (epoch s) to requests per second per rule, oldest first
     * @param ruleIds the lines to draw, in legend order
     */
    static RateChart of(SortedMap<Long, Map<String, Double>> windows, List<String> ruleIds, long windowSeconds) {
        List<Long> starts = new ArrayList<>(windows.keySet());
        double max = 0;
        for (Map<String, Double> rates : windows.values()) {
            for (String ruleId : ruleIds) {
                max = Math.max(max, rates.getOrDefault(ruleId, 0.0));
            }
        }
        double top = niceCeiling(max);
        double plotWidth = WIDTH - LEFT - RIGHT;
        double plotHeight = HEIGHT - TOP - BOTTOM;
        int slots = Math.max(1, starts.size() - 1);
        List<Line> lines = new ArrayList<>();
        List<String> described = new ArrayList<>();
        for (int r = 0; r < ruleIds.size(); r++) {
            String ruleId = ruleIds.get(r);
            StringBuilder points = new StringBuilder();
            double latest = 0;
            for (int i = 0; i < starts.size(); i++) {
                double rate = windows.get(starts.get(i)).getOrDefault(ruleId, 0.0);
                double x = LEFT + plotWidth * i / slots;
                double y = TOP + plotHeight * (1 - rate / top);
                points.append(i == 0 ? "" : " ").append(format(x)).append(',').append(format(y));
                latest = rate;
            }
            lines.add(new Line(ruleId, COLOURS.get(r % COLOURS.size()), points.toString(), rate(latest)));
            described.add(ruleId + " " + rate(latest));
        }
        List<Tick> yTicks = new ArrayList<>();
        for (int i = 0; i <= 4; i++) {
            double value = top * i / 4;
            yTicks.add(new Tick(TOP + plotHeight * (1 - value / top), rate(value)));
        }
        List<Tick> xTicks = new ArrayList<>();
        for (int i = 0; i < starts.size(); i++) {
            // seconds before the newest window, at most five labels
            if (i == starts.size() - 1 || (starts.size() - 1 - i) % Math.max(1, starts.size() / 4) == 0) {
                long ago = (starts.get(starts.size() - 1) - starts.get(i));
                xTicks.add(new Tick(LEFT + plotWidth * i / slots, ago == 0 ? "now" : "-" + ago + " s"));
            }
        }
        String span = starts.isEmpty() ? "no windows yet" : "the last " + (starts.size() * windowSeconds) + " s";
        String summary = "Requests per second admitted in this region, per " + windowSeconds + " s window, over " + span
                + (described.isEmpty() ? "." : "; latest: " + String.join(", ", described) + ".");
        return new RateChart(WIDTH, HEIGHT, lines, yTicks, xTicks, summary);
    }

    /** The axis top: 1, 2 or 5 times a power of ten, at least 1 req/s, so an idle key still has an axis. */
    static double niceCeiling(double max) {
        if (max <= 1) {
            return 1;
        }
        double power = Math.pow(10, Math.floor(Math.log10(max)));
        for (double step : new double[] {1, 2, 5, 10}) {
            if (max <= step * power) {
                return step * power;
            }
        }
        return 10 * power;
    }

    static String rate(double perSecond) {
        if (perSecond == Math.rint(perSecond)) {
            return String.format(Locale.ROOT, "%d/s", (long) perSecond);
        }
        return String.format(Locale.ROOT, perSecond < 10 ? "%.1f/s" : "%.0f/s", perSecond);
    }

    private static String format(double coordinate) {
        return String.format(Locale.ROOT, "%.1f", coordinate);
    }
}
