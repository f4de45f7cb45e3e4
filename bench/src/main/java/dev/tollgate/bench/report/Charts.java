package dev.tollgate.bench.report;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Draws the report's PNGs into {@code <report>/report/}. Rendering needs no display: AWT runs headless.
 * Log axes cannot show zero, so values there are raised to a small floor (stated on the axis title).
 */
public final class Charts {

    public static final String FOLDER = "report";
    private static final int WIDTH = 960;
    private static final int HEIGHT = 520;

    static {
        System.setProperty("java.awt.headless", "true");
    }

    private final Path reportDir;

    public Charts(Path reportDir) {
        this.reportDir = reportDir;
    }

    /** A reference level drawn across a bar chart as a line (a limit, a design figure). */
    public record Reference(String name, double value) {
    }

    /**
     * Grouped bars: one group per category, one bar per series (in map order).
     *
     * @param reference a horizontal line, or null
     */
    public Section.Chart bars(String file, String title, String xTitle, String yTitle, List<String> categories,
                              Map<String, List<Double>> series, boolean logY, boolean stacked, Reference reference) {
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title)
                .xAxisTitle(xTitle).yAxisTitle(yTitle).build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
        chart.getStyler().setStacked(stacked);
        chart.getStyler().setYAxisLogarithmic(logY);
        chart.getStyler().setYAxisDecimalPattern("#,##0.###");
        chart.getStyler().setLabelsVisible(false);
        double floor = floorFor(series, logY);
        if (logY) {
            // bars start at zero unless told otherwise, and a log axis cannot
            chart.getStyler().setYAxisMin(floor);
        }
        series.forEach((name, values) -> chart.addSeries(name, categories, floored(values, floor)));
        if (reference != null) {
            CategorySeries line = chart.addSeries(reference.name(), categories,
                    Collections.nCopies(categories.size(), reference.value()));
            line.setChartCategorySeriesRenderStyle(CategorySeries.CategorySeriesRenderStyle.Line);
            line.setMarker(SeriesMarkers.NONE);
        }
        return save(chart, file, title);
    }

    /** One line of a chart whose lines need not share their x values. */
    public record Curve(double[] x, double[] y) {
    }

    /** Lines over a shared x axis (seconds of a run, percentiles). */
    public Section.Chart lines(String file, String title, String xTitle, String yTitle, double[] x,
                               Map<String, double[]> series, boolean logY) {
        Map<String, Curve> curves = new LinkedHashMap<>();
        series.forEach((name, y) -> curves.put(name, new Curve(x, y)));
        return curves(file, title, xTitle, yTitle, curves, logY);
    }

    /** Lines each over x values of its own, on one x axis: runs of different lengths, say. */
    public Section.Chart curves(String file, String title, String xTitle, String yTitle, Map<String, Curve> series, boolean logY) {
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title)
                .xAxisTitle(xTitle).yAxisTitle(yTitle).build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
        chart.getStyler().setYAxisLogarithmic(logY);
        chart.getStyler().setMarkerSize(4);
        chart.getStyler().setYAxisDecimalPattern("#,##0.###");
        series.forEach((name, curve) -> {
            double[] y = curve.y().clone();
            if (logY) {
                for (int i = 0; i < y.length; i++) {
                    y[i] = Math.max(y[i], 1e-3);
                }
            }
            XYSeries line = chart.addSeries(name, curve.x(), y);
            line.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
        });
        return save(chart, file, title);
    }

    private static double floorFor(Map<String, List<Double>> series, boolean logY) {
        if (!logY) {
            return Double.NEGATIVE_INFINITY;
        }
        double smallest = Double.MAX_VALUE;
        for (List<Double> values : series.values()) {
            for (Double value : values) {
                if (value != null && value > 0) {
                    smallest = Math.min(smallest, value);
                }
            }
        }
        return smallest == Double.MAX_VALUE ? 1 : smallest / 2;
    }

    private static List<Double> floored(List<Double> values, double floor) {
        List<Double> out = new ArrayList<>(values.size());
        for (Double value : values) {
            double v = value == null || Double.isNaN(value) ? 0 : value;
            out.add(Math.max(v, floor));
        }
        return out;
    }

    private Section.Chart save(org.knowm.xchart.internal.chartpart.Chart<?, ?> chart, String file, String caption) {
        try {
            Path folder = reportDir.resolve(FOLDER);
            Files.createDirectories(folder);
            Path target = folder.resolve(file + ".png");
            BitmapEncoder.saveBitmap(chart, target.toString(), BitmapEncoder.BitmapFormat.PNG);
            return new Section.Chart(caption, FOLDER + "/" + file + ".png");
        } catch (IOException e) {
            throw new UncheckedIOException("could not write chart " + file, e);
        }
    }
}
