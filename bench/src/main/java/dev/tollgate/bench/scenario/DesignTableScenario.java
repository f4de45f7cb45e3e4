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
import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.limiter.rules.StaticRuleBook;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The design's table "Why each pod can't just count alone", measured: one Enterprise key (1,000/s,
 * burst 2,000) offered 2,000/s on a fleet of 50 pods, in the four cases of the table.
 */
final class DesignTableScenario implements Scenario {

    private static final int LIMIT = 1_000;
    /** 2.5× the limit: every pod runs into its slice, and new pods' full buckets drain within the settle time. */
    private static final double OFFERED = 2_500;
    private static final int SCALED_PODS = 75;
    private static final int RESTARTED_POD = 7;
    private static final int MAX_IN_FLIGHT = 20_000;
    private static final List<Contender> CONTENDERS = List.of(Contender.BASELINE, Contender.PER_REQUEST, Contender.OPTIMIZED);

    enum Case {
        PINNED("pinned to 2 pods", "2 × 20 = 40/s (4%)"),
        SPREAD("spread evenly", "~1,000/s (right by luck)"),
        AUTOSCALED("autoscaled to 75 pods", "75 × 20 = 1,500/s (150%)"),
        RESTART("pod restart", "up to +40 at once");

        final String label;
        final String designBaseline;

        Case(String label, String designBaseline) {
            this.label = label;
            this.designBaseline = designBaseline;
        }
    }

    /** One case for one contender: per-window admitted rates, store calls, and the restart's extra. */
    record Result(double admitted, double admittedMin, double admittedMax, double storeCalls, long fallback,
                  double restartExtra, double restartWindow) {
    }

    @Override
    public int number() {
        return 1;
    }

    @Override
    public String title() {
        return "The design's table: one 1,000/s key on 50 pods";
    }

    @Override
    public Section run(Bench bench, Charts charts) {
        Map<Case, Map<Contender, Result>> results = new EnumMap<>(Case.class);
        for (Case c : Case.values()) {
            Map<Contender, Result> byContender = new LinkedHashMap<>();
            for (Contender contender : CONTENDERS) {
                System.out.printf("  scenario 1: %s, %s%n", c.label, contender.name());
                byContender.put(contender, runCase(bench, c, contender));
                bench.pause();
            }
            results.put(c, byContender);
        }
        return write(bench, charts, results);
    }

    private Result runCase(Bench bench, Case c, Contender contender) {
        var options = bench.options();
        double warm = options.seconds(3);
        double settle = c == Case.AUTOSCALED ? options.seconds(3.5) : 0;
        double measure = options.seconds(c == Case.RESTART ? 6 : 5);
        double window = Math.min(1.0, measure / 5);
        String key = bench.key("s1_" + c.name().toLowerCase());
        CheckRequest request = new CheckRequest(Bench.DOMAIN, List.of(CheckEntry.of(Plans.ENTERPRISE.id(), key, 1)));
        Fleet fleet = bench.fleet(contender, Bench.PODS, new StaticRuleBook(List.of(Plans.ENTERPRISE)));
        Timeline timeline = bench.newRun(warm + settle + measure, null);
        OpenLoop load = new OpenLoop(timeline, options.rate(OFFERED), MAX_IN_FLIGHT, sequence -> {
            int pod = c == Case.PINNED ? (int) (sequence % 2) : ThreadLocalRandom.current().nextInt(fleet.size());
            return fleet.pod(pod).check(request);
        });

        double from = warm + settle;
        double to = from + measure;
        double restartAt = Double.NaN;
        switch (c) {
            case PINNED, SPREAD -> load.runUntil(to);
            case AUTOSCALED -> {
                load.runUntil(warm);
                fleet.scaleTo(SCALED_PODS);
                load.runUntil(to);
            }
            case RESTART -> {
                restartAt = from + measure / 2;
                load.runUntil(restartAt);
                fleet.restart(RESTARTED_POD);
                load.runUntil(to);
            }
        }
        load.drain(2);

        double[] admitted = timeline.ratePerWindow(Series.ALLOWED, from, to, window);
        double[] calls = timeline.ratePerWindow(Series.STORE_CALLS, from, to, window);
        double extra = Double.NaN;
        if (c == Case.RESTART) {
            double[] before = timeline.ratePerWindow(Series.ALLOWED, from, restartAt, window);
            extra = timeline.sum(Series.ALLOWED, restartAt, restartAt + window) - Stats.median(before) * window;
        }
        return new Result(Stats.median(admitted), Stats.min(admitted), Stats.max(admitted), Stats.median(calls),
                timeline.sum(Series.FALLBACK, 0, to), extra, window);
    }

    private Section write(Bench bench, Charts charts, Map<Case, Map<Contender, Result>> results) {
        var options = bench.options();
        double limit = LIMIT;
        Section section = new Section(number(), title());
        section.method("One key under the Enterprise rule (1,000/s, burst 2,000), offered "
                + Format.rate(options.rate(OFFERED)) + " open-loop (2.5× its limit, so every pod's slice runs into its limit) "
                + "on a fleet of " + Bench.PODS + " simulated pods. **Pinned**: every request lands on pod 0 or 1. "
                + "**Spread**: each request picks one of the pods at random. **Autoscaled**: the fleet starts at 50; after "
                + "the warm-up 25 fresh pods join and the live pod count every engine reads becomes 75; measuring starts "
                + Format.seconds(options.seconds(3.5)) + " later, once the new pods' full buckets have drained. **Pod restart**: "
                + "traffic spread as above; half-way through the measured window pod " + RESTARTED_POD
                + " is replaced by a freshly built one (new engine, empty state).");
        section.method("The per-pod-local baseline gives each pod 1,000 ÷ 50 = 20/s with a burst of 2,000 ÷ 50 = 40 and "
                + "shares nothing; it keeps dividing by 50 after autoscaling, as a static configuration does. "
                + "Admitted rates are the median over " + windowText(results) + " windows after a "
                + Format.seconds(options.seconds(3)) + " warm-up (long enough to drain the 2,000-token burst), with the "
                + "smallest and largest window in brackets. The restart's extra is what the first window after the restart "
                + "admitted above the median window before it.");

        Table table = new Table(null, List.of("case", "design says (per-pod local)", "per-pod local", "Tollgate NONE",
                "Tollgate ALL", "store calls/s NONE → ALL"));
        for (Case c : Case.values()) {
            Map<Contender, Result> row = results.get(c);
            List<String> cells = new ArrayList<>();
            cells.add(c.label);
            cells.add(c.designBaseline);
            for (Contender contender : CONTENDERS) {
                Result r = row.get(contender);
                cells.add(Format.rate(r.admitted()) + " (" + Format.percent(r.admitted() / limit) + ") ["
                        + Format.count(r.admittedMin()) + "–" + Format.count(r.admittedMax()) + "]");
            }
            cells.add(Format.rate(row.get(Contender.PER_REQUEST).storeCalls()) + " → " + Format.rate(row.get(Contender.OPTIMIZED).storeCalls()));
            table.row(cells);
        }
        section.table(table);

        Table restart = new Table("Pod restart: what the first window after the restart admitted above the steady rate.",
                List.of("contender", "extra admitted", "answers from fallback (whole scenario run)"));
        for (Contender contender : CONTENDERS) {
            Result r = results.get(Case.RESTART).get(contender);
            long fallback = 0;
            for (Case c : Case.values()) {
                fallback += results.get(c).get(contender).fallback();
            }
            restart.row(contender.name(), (r.restartExtra() >= 0 ? "+" : "") + Format.count(r.restartExtra())
                    + " in " + Format.ratio(r.restartWindow()) + " s", Format.count(fallback));
        }
        section.table(restart);

        List<String> categories = new ArrayList<>();
        for (Case c : Case.values()) {
            categories.add(c.label);
        }
        Map<String, List<Double>> series = new LinkedHashMap<>();
        for (Contender contender : CONTENDERS) {
            List<Double> values = new ArrayList<>();
            for (Case c : Case.values()) {
                values.add(results.get(c).get(contender).admitted());
            }
            series.put(contender.name(), values);
        }
        section.chart(charts.bars("s1-design-table", "Admitted rate of one 1,000/s key, 50 pods", "case",
                "admitted per second (median window)", categories, series, false, false,
                new Charts.Reference("limit 1,000/s", limit)));

        for (Case c : Case.values()) {
            double all = results.get(c).get(Contender.OPTIMIZED).admitted();
            boolean within = Math.abs(all - limit) <= 0.05 * limit;
            section.check("Tollgate ALL within ±5% of 1,000/s, " + c.label, Format.rate(all), within);
        }
        section.note("Leases do not help here: the key runs at its limit, so its bucket is nearly empty and leases shrink "
                + "to 1. What cuts the store calls is the deny queue: a pod denied on the empty bucket (or handed its last "
                + "token) is told to hold off until the tokens due before its turn have gone to the pods denied before it, so "
                + "the pods sharing the key come back one per token instead of all at the next one (a retry is one token at "
                + "1,000/s, about a millisecond), and, when pinned, the local-first buckets (each of the two pods sees more "
                + "than the key's whole rate). Leases pay off below the limit (scenario 3) and on hot keys (scenario 2).");
        return section;
    }

    private static String windowText(Map<Case, Map<Contender, Result>> results) {
        double window = results.get(Case.SPREAD).get(Contender.BASELINE).restartWindow();
        return Format.ratio(window) + " s";
    }
}
