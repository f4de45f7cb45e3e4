package dev.tollgate.bench.scenario;

import dev.tollgate.bench.Bench;
import dev.tollgate.bench.fleet.Contender;
import dev.tollgate.bench.fleet.Fleet;
import dev.tollgate.bench.fleet.LocalAnswers;
import dev.tollgate.bench.load.Answer;
import dev.tollgate.bench.load.OpenLoop;
import dev.tollgate.bench.load.Timeline;
import dev.tollgate.bench.load.Timeline.Series;
import dev.tollgate.bench.report.Charts;
import dev.tollgate.bench.report.Format;
import dev.tollgate.bench.report.Section;
import dev.tollgate.bench.report.Table;
import dev.tollgate.common.check.CheckRequest;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;

/** The design's "Bucket updates per second": store calls per check at its traffic mix, stage by stage. */
final class TrafficMixScenario implements Scenario {

    private static final int MAX_IN_FLIGHT = 20_000;
    private static final List<Contender> CONTENDERS = List.of(Contender.BASELINE, Contender.PER_REQUEST,
            Contender.DENY_CACHE, Contender.DENY_CACHE_AND_LEASES, Contender.OPTIMIZED);
    private static final Map<Contender, String> DESIGN = Map.of(
            Contender.PER_REQUEST, "100%", Contender.DENY_CACHE, "90%", Contender.DENY_CACHE_AND_LEASES, "23%");

    record Result(long checks, long storeCalls, long[] sentByKind, long[] admittedByKind, Map<String, Long> callsByClass,
                  long fallback, long late, LocalAnswers local) {

        double callsPerCheck() {
            return checks == 0 ? Double.NaN : (double) storeCalls / checks;
        }

        double callsPerCheck(Mix.Kind kind) {
            long sent = sentByKind[kind.ordinal()];
            return sent == 0 ? Double.NaN : (double) callsByClass.getOrDefault(kind.prefix(), 0L) / sent;
        }

        double admittedShare(Mix.Kind kind) {
            long sent = sentByKind[kind.ordinal()];
            return sent == 0 ? Double.NaN : (double) admittedByKind[kind.ordinal()] / sent;
        }
    }

    @Override
    public int number() {
        return 3;
    }

    @Override
    public String title() {
        return "The design's traffic mix: store calls per check";
    }

    @Override
    public Section run(Bench bench, Charts charts) {
        Map<Contender, Result> results = new LinkedHashMap<>();
        for (Contender contender : CONTENDERS) {
            System.out.printf("  scenario 3: %s%n", contender.name());
            results.put(contender, runOnce(bench, contender));
            bench.pause();
        }
        return write(bench, charts, results);
    }

    static Result runOnce(Bench bench, Contender contender) {
        return runOnce(bench, contender, bench.options().seconds(3), bench.options().seconds(6));
    }

    static void warmUp(Bench bench, Contender contender, double seconds) {
        runOnce(bench, contender, 0, seconds);
        bench.pause();
    }

    private static Result runOnce(Bench bench, Contender contender, double warm, double measure) {
        var options = bench.options();
        Mix mix = new Mix(bench);
        Fleet fleet = bench.fleet(contender, Bench.PODS, Mix.RULES);
        Timeline timeline = bench.newRun(warm + measure, Mix::classOf);
        timeline.countClassesFrom(warm);
        long from = timeline.startNanos() + (long) (warm * 1e9);
        long to = timeline.startNanos() + (long) ((warm + measure) * 1e9);
        LongAdder[] sent = adders();
        LongAdder[] admitted = adders();
        double rate = options.rate(Mix.NOMINAL_RATE);
        OpenLoop load = new OpenLoop(timeline, rate, MAX_IN_FLIGHT, sequence -> {
            Mix.Kind kind = mix.pickKind();
            CheckRequest request = mix.pick(kind);
            long intended = timeline.startNanos() + (long) (sequence * 1e9 / rate);
            boolean counted = intended >= from && intended < to;
            if (counted) {
                sent[kind.ordinal()].increment();
            }
            return fleet.pod(ThreadLocalRandom.current().nextInt(fleet.size())).check(request).thenApply(answer -> {
                if (counted && answer.admitted()) {
                    admitted[kind.ordinal()].increment();
                }
                return answer;
            });
        });
        load.runUntil(warm);
        LocalAnswers before = LocalAnswers.of(fleet);
        load.runUntil(warm + measure);
        load.drain(2);
        LocalAnswers local = LocalAnswers.of(fleet).minus(before);
        return new Result(timeline.sum(Series.SENT, warm, warm + measure), timeline.sum(Series.STORE_CALLS, warm, warm + measure),
                sums(sent), sums(admitted), timeline.storeCallsByClass(), timeline.sum(Series.FALLBACK, 0, warm + measure), load.late(), local);
    }

    private Section write(Bench bench, Charts charts, Map<Contender, Result> results) {
        var options = bench.options();
        Section section = new Section(number(), title());
        double rate = options.rate(Mix.NOMINAL_RATE);
        StringBuilder keys = new StringBuilder();
        for (Mix.Kind kind : Mix.Kind.values()) {
            keys.append(keys.isEmpty() ? "" : "; ").append(kind.label).append(": ").append(kind.keys).append(" keys (")
                    .append(kind.plan.id()).append(' ').append(kind.plan.ratePerS()).append("/s burst ").append(kind.plan.burst())
                    .append(") at ").append(Format.rate(Mix.perKeyRate(kind, rate))).append(" each");
        }
        section.method("Offered " + Format.rate(rate) + " open-loop over " + Bench.PODS + " pods (each check on a random pod), "
                + "as the design's mix: 10% of checks from clients already over their limit, and of the rest 75% Enterprise, "
                + "15% Growth, 10% Free. " + keys + ". Every check has two entries on the same key: the plan's account "
                + "bucket and a route bucket (" + Plans.ROUTE.ratePerS() + "/s burst " + Plans.ROUTE.burst() + "), so one "
                + "script call updates both. Counted over " + Format.seconds(options.seconds(6)) + " after a "
                + Format.seconds(options.seconds(3)) + " warm-up: store calls (script calls at the engine's store port) "
                + "divided by checks offered. The stages switch the optimizations on one at a time, as the design's table does; "
                + "the per-pod-local baseline makes no store calls at all and is listed for what it admits.");
        Table table = new Table(null, List.of("contender", "store calls per check", "vs per request", "design",
                "over-limit", "Enterprise", "Growth", "Free", "admitted: over-limit / Enterprise / Growth / Free", "fallback answers"));
        double perRequest = results.get(Contender.PER_REQUEST).callsPerCheck();
        for (Map.Entry<Contender, Result> e : results.entrySet()) {
            Result r = e.getValue();
            List<String> cells = new ArrayList<>();
            cells.add(e.getKey().name());
            cells.add(Format.ratio(r.callsPerCheck()));
            cells.add(Format.percent(r.callsPerCheck() / perRequest));
            cells.add(DESIGN.getOrDefault(e.getKey(), "–"));
            for (Mix.Kind kind : Mix.Kind.values()) {
                cells.add(Format.ratio(r.callsPerCheck(kind)));
            }
            StringBuilder admitted = new StringBuilder();
            for (Mix.Kind kind : Mix.Kind.values()) {
                admitted.append(admitted.isEmpty() ? "" : " / ").append(Format.percent(r.admittedShare(kind)));
            }
            cells.add(admitted.toString());
            cells.add(Format.count(r.fallback()));
            table.row(cells);
        }
        section.table(table);
        section.note("Columns over-limit … Free: store calls per check of that class of client. \"admitted\": the share of each "
                + "class's checks that were allowed (over-limit clients send 10× their limit, so an exact limiter admits ~10% of them).");
        Map<String, LocalAnswers> local = new LinkedHashMap<>();
        Map<String, Long> checks = new LinkedHashMap<>();
        for (Map.Entry<Contender, Result> e : results.entrySet()) {
            if (!e.getKey().baseline()) {
                local.put(e.getKey().name(), e.getValue().local());
                checks.put(e.getKey().name(), e.getValue().checks());
            }
        }
        section.table(Scenarios.localAnswersTable(local, checks));
        Result optimizedResult = results.get(Contender.OPTIMIZED);
        double weighted = 0;
        StringBuilder terms = new StringBuilder();
        for (Mix.Kind kind : Mix.Kind.values()) {
            double perCheck = optimizedResult.callsPerCheck(kind);
            weighted += kind.share * (Double.isNaN(perCheck) ? 0 : perCheck);
            terms.append(terms.isEmpty() ? "" : " + ").append(Format.ratio(kind.share)).append(" × ").append(Format.ratio(perCheck));
        }
        section.note("The design's arithmetic with this run's per-class figures (Tollgate ALL): " + terms + " = "
                + Format.ratio(weighted) + " store calls per check; the design assumes 0.10 × 0 + 0.675 × 0.1 + 0.135 × 0.5 "
                + "+ 0.09 × 1 = 0.23. Its first term assumes the deny cache answers every over-limit check; here each "
                + "over-limit key's " + Format.rate(Mix.perKeyRate(Mix.Kind.OVER, rate)) + " spread over " + Bench.PODS
                + " pods gives a pod " + Format.rate(Mix.perKeyRate(Mix.Kind.OVER, rate) / Bench.PODS) + " of it, "
                + Format.ratio(Mix.perKeyRate(Mix.Kind.OVER, rate) / Bench.PODS * 0.1) + " requests per Free retry interval "
                + "(100 ms), so most of them find no remembered deny on their pod. The deny cache cuts a flood that hits "
                + "each pod many times per retry interval, not a client a little over its limit spread over many pods.");

        List<String> categories = new ArrayList<>();
        Map<String, List<Double>> series = new LinkedHashMap<>();
        for (Mix.Kind kind : Mix.Kind.values()) {
            series.put(kind.label, new ArrayList<>());
        }
        for (Map.Entry<Contender, Result> e : results.entrySet()) {
            if (e.getKey().baseline()) {
                continue;
            }
            categories.add(e.getKey().name());
            Result r = e.getValue();
            for (Mix.Kind kind : Mix.Kind.values()) {
                series.get(kind.label).add(r.checks() == 0 ? 0 : (double) r.callsByClass().getOrDefault(kind.prefix(), 0L) / r.checks());
            }
        }
        section.chart(charts.bars("s3-traffic-mix", "Store calls per check at the design's traffic mix, by client class",
                "stage", "store calls per check (stacked by class)", categories, series, false, true,
                new Charts.Reference("target: 25% of per request", 0.25 * perRequest)));

        double optimized = results.get(Contender.OPTIMIZED).callsPerCheck() / perRequest;
        section.check("Traffic mix: store updates per check ≤ 25% of per request", Format.percent(optimized), optimized <= 0.25);
        Scenarios.noteIfOptimizationsInactive(section, perRequest, results.get(Contender.OPTIMIZED).callsPerCheck());
        return section;
    }

    private static LongAdder[] adders() {
        LongAdder[] out = new LongAdder[Mix.Kind.values().length];
        for (int i = 0; i < out.length; i++) {
            out[i] = new LongAdder();
        }
        return out;
    }

    private static long[] sums(LongAdder[] adders) {
        long[] out = new long[adders.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = adders[i].sum();
        }
        return out;
    }
}
