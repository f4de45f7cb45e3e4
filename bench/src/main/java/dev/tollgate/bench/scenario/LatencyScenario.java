package dev.tollgate.bench.scenario;

import dev.tollgate.bench.Bench;
import dev.tollgate.bench.Scenario;
import dev.tollgate.bench.fleet.Contender;
import dev.tollgate.bench.fleet.Fleet;
import dev.tollgate.bench.load.OpenLoop;
import dev.tollgate.bench.load.Stats;
import dev.tollgate.bench.load.Timeline;
import dev.tollgate.bench.load.Timeline.Series;
import dev.tollgate.bench.report.Charts;
import dev.tollgate.bench.report.Format;
import dev.tollgate.bench.report.Section;
import dev.tollgate.bench.report.Table;
import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Requirement #2: the latency the limit check adds, under open-loop load at stated rates. Every check is
 * timed from its intended send time to its answer, so a stall anywhere (sender, engine, client, Redis,
 * garbage collection) is counted in full, not hidden by the sender waiting for it.
 */
final class LatencyScenario implements Scenario {

    private static final int MAX_IN_FLIGHT = 50_000;
    private static final double[] PERCENTILES = {50, 90, 99, 99.9, 99.99};
    private static final List<Contender> CONTENDERS = List.of(Contender.BASELINE, Contender.PER_REQUEST, Contender.OPTIMIZED);

    /** All repeats of one rate and contender: their merged histogram and each repeat's p99. */
    static final class Result {
        final Histogram merged = OpenLoop.newHistogram();
        final List<Double> p99s = new ArrayList<>();
        long fallback;
        long late;
        long shed;
    }

    @Override
    public int number() {
        return 5;
    }

    @Override
    public String title() {
        return "Latency of the check under open-loop load";
    }

    @Override
    public Section run(Bench bench, Charts charts) {
        var options = bench.options();
        Map<Integer, Map<Contender, Result>> results = new LinkedHashMap<>();
        for (int nominal : options.latencyRates()) {
            Map<Contender, Result> byContender = new LinkedHashMap<>();
            for (Contender contender : CONTENDERS) {
                byContender.put(contender, new Result());
            }
            for (int repeat = 0; repeat < options.repeats(); repeat++) {
                for (Contender contender : CONTENDERS) {
                    System.out.printf("  scenario 5: %s/s, %s, repeat %d%n", nominal, contender.name(), repeat + 1);
                    runOnce(bench, contender, options.rate(nominal), byContender.get(contender));
                    bench.pause();
                }
            }
            results.put(nominal, byContender);
        }
        return write(bench, charts, results);
    }

    private void runOnce(Bench bench, Contender contender, double rate, Result into) {
        var options = bench.options();
        double warm = options.seconds(1);
        double measure = options.seconds(4);
        Mix mix = new Mix(bench);
        Fleet fleet = bench.fleet(contender, Bench.PODS, Mix.RULES);
        Timeline timeline = bench.newRun(warm + measure, null);
        OpenLoop load = new OpenLoop(timeline, rate, MAX_IN_FLIGHT,
                sequence -> {
                    Mix.Client client = mix.pick(mix.pickKind());
                    return fleet.pod(client.pod(fleet.size())).check(client.request());
                });
        Histogram histogram = OpenLoop.newHistogram();
        load.recordLatency(histogram, warm);
        load.runUntil(warm + measure);
        int unanswered = load.drain(5);
        for (int i = 0; i < unanswered; i++) {
            histogram.recordValue(5_000_000_000L);
        }
        into.merged.add(histogram);
        into.p99s.add((double) histogram.getValueAtPercentile(99));
        into.fallback += timeline.sum(Series.FALLBACK, warm, warm + measure);
        into.shed += timeline.sum(Series.SHED, 0, warm + measure);
        into.late += load.late();
    }

    private Section write(Bench bench, Charts charts, Map<Integer, Map<Contender, Result>> results) {
        var options = bench.options();
        Section section = new Section(number(), title());
        section.method("Open-loop load at each stated rate: check n is due at n ÷ rate and is timed from that moment to its "
                + "answer (HdrHistogram, 3 significant digits), so coordinated omission cannot hide a stall. The checks "
                + "are scenario 3's traffic mix (two entries per check, 10% from over-limit clients) on " + Bench.PODS
                + " pods, measured in the engine's process: Limiter.check to the completed future, including the Redis "
                + "round trip on loopback and the sender's own scheduling on this shared 2-core machine. Each rate and "
                + "contender runs " + options.repeats() + " times for " + Format.seconds(options.seconds(4)) + " after a "
                + Format.seconds(options.seconds(1)) + " warm-up, interleaved with the other contenders; the percentiles "
                + "are of all repeats' checks merged, with the spread of p99 over the repeats beside them. The store's "
                + "command timeout in this run is " + options.commandTimeout().toMillis() + " ms (production: 5 ms). The "
                + "per-pod-local row makes no I/O at all: it is the floor that the harness, the JVM and this machine add "
                + "to every check.");
        Table table = new Table(null, List.of("rate", "contender", "checks", "p50", "p99", "p99 over repeats",
                "p99.9", "max", "fallback answers", "sent > 10 ms late"));
        for (Map.Entry<Integer, Map<Contender, Result>> byRate : results.entrySet()) {
            for (Map.Entry<Contender, Result> e : byRate.getValue().entrySet()) {
                Result r = e.getValue();
                Histogram h = r.merged;
                double[] p99s = r.p99s.stream().mapToDouble(Double::doubleValue).toArray();
                table.row(Format.rate(options.rate(byRate.getKey())), e.getKey().name(), Format.count(h.getTotalCount()),
                        Format.millis(h.getValueAtPercentile(50)), Format.millis(h.getValueAtPercentile(99)),
                        Format.millis(Stats.min(p99s)) + "–" + Format.millis(Stats.max(p99s)),
                        Format.millis(h.getValueAtPercentile(99.9)), Format.millis(h.getMaxValue()),
                        Format.count(r.fallback), Format.count(r.late));
            }
        }
        section.table(table);

        int highest = results.keySet().stream().mapToInt(Integer::intValue).max().orElse(0);
        List<String> categories = new ArrayList<>();
        for (double p : PERCENTILES) {
            categories.add("p" + (p == Math.rint(p) ? Integer.toString((int) p) : Double.toString(p)));
        }
        categories.add("max");
        Map<String, List<Double>> series = new LinkedHashMap<>();
        for (Map.Entry<Contender, Result> e : results.get(highest).entrySet()) {
            List<Double> values = new ArrayList<>();
            for (double p : PERCENTILES) {
                values.add(e.getValue().merged.getValueAtPercentile(p) / 1e6);
            }
            values.add(e.getValue().merged.getMaxValue() / 1e6);
            series.put(e.getKey().name(), values);
        }
        section.chart(charts.bars("s5-latency", "Check latency at " + Format.rate(options.rate(highest)) + " open-loop (from intended send time)",
                "percentile", "milliseconds (log scale)", categories, series, true, false, new Charts.Reference("requirement #2: 1 ms", 1.0)));

        for (Map.Entry<Integer, Map<Contender, Result>> byRate : results.entrySet()) {
            double p99 = byRate.getValue().get(Contender.OPTIMIZED).merged.getValueAtPercentile(99);
            section.check("p99 ≤ 1 ms at " + Format.rate(options.rate(byRate.getKey())) + " (requirement #2), Tollgate ALL",
                    Format.millis(p99), p99 <= 1_000_000);
        }
        return section;
    }
}
