package dev.tollgate.bench.scenario;

import dev.tollgate.bench.Bench;
import dev.tollgate.bench.Scenario;
import dev.tollgate.bench.fleet.Contender;
import dev.tollgate.bench.fleet.Fleet;
import dev.tollgate.bench.fleet.LocalAnswers;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/** The design's "Leases on a hot key": a marketplace partner's 20,000 req/s on a 25,000/s override, over 50 pods. */
final class HotKeyScenario implements Scenario {

    private static final double OFFERED = 20_000;
    private static final int MAX_IN_FLIGHT = 50_000;
    private static final List<Contender> CONTENDERS = List.of(Contender.BASELINE, Contender.PER_REQUEST, Contender.OPTIMIZED);

    record Result(double sent, double admitted, double maxAdmitted, double storeCalls, double callsPerCheck,
                  long fallback, long shed, long failed, long late, double maxLag, LocalAnswers local, long checks,
                  long sentInRun) {
    }

    @Override
    public int number() {
        return 2;
    }

    @Override
    public String title() {
        return "Hot key: 20,000 req/s on a 25,000/s override over 50 pods";
    }

    @Override
    public Section run(Bench bench, Charts charts) {
        Map<Contender, Result> results = new LinkedHashMap<>();
        for (Contender contender : CONTENDERS) {
            System.out.printf("  scenario 2: %s%n", contender.name());
            results.put(contender, runOnce(bench, contender));
            bench.pause();
        }
        return write(bench, charts, results);
    }

    private Result runOnce(Bench bench, Contender contender) {
        var options = bench.options();
        double warm = options.seconds(2);
        double measure = options.seconds(6);
        double window = Math.min(1.0, measure / 5);
        String key = bench.key("s2_partner");
        CheckRequest request = new CheckRequest(Bench.DOMAIN, List.of(CheckEntry.of(Plans.PARTNER.id(), key, 1)));
        Fleet fleet = bench.fleet(contender, Bench.PODS, new StaticRuleBook(List.of(Plans.PARTNER)));
        Timeline timeline = bench.newRun(warm + measure, null);
        OpenLoop load = new OpenLoop(timeline, options.rate(OFFERED), MAX_IN_FLIGHT,
                sequence -> fleet.pod(ThreadLocalRandom.current().nextInt(fleet.size())).check(request));
        load.runUntil(warm);
        LocalAnswers before = LocalAnswers.of(fleet);
        load.runUntil(warm + measure);
        load.drain(2);
        LocalAnswers local = LocalAnswers.of(fleet).minus(before);
        double from = warm;
        double to = warm + measure;
        double[] sent = timeline.ratePerWindow(Series.SENT, from, to, window);
        double[] admitted = timeline.ratePerWindow(Series.ALLOWED, from, to, window);
        double[] calls = timeline.ratePerWindow(Series.STORE_CALLS, from, to, window);
        long totalSent = timeline.sum(Series.SENT, from, to);
        long totalCalls = timeline.sum(Series.STORE_CALLS, from, to);
        return new Result(Stats.median(sent), Stats.median(admitted), Stats.max(admitted), Stats.median(calls),
                totalSent == 0 ? Double.NaN : (double) totalCalls / totalSent,
                timeline.sum(Series.FALLBACK, 0, to), timeline.sum(Series.SHED, 0, to), timeline.sum(Series.FAILED, 0, to),
                load.late(), load.maxLagSeconds(), local, totalSent, timeline.sum(Series.SENT, 0, to));
    }

    private Section write(Bench bench, Charts charts, Map<Contender, Result> results) {
        var options = bench.options();
        int limit = Plans.bucket(Plans.PARTNER).ratePerS();
        Section section = new Section(number(), title());
        section.method("One key under a 25,000/s rule with a burst of 50,000, offered " + Format.rate(options.rate(OFFERED))
                + " open-loop, each request on a random one of " + Bench.PODS + " pods. After a "
                + Format.seconds(options.seconds(2)) + " warm-up, " + Format.seconds(options.seconds(6))
                + " are measured; rates are medians of 1 s windows (store calls are counted at the engine's store port, "
                + "one per script call, i.e. per round trip). The design expects leases of 50 while the bucket is full: "
                + "400 req/s per pod ÷ 50 = 8 calls/s per pod, 400/s for the key instead of 20,000/s.");
        Table table = new Table(null, List.of("contender", "offered (sent)", "admitted", "most admitted in a window",
                "store calls/s for the key", "store calls per check", "answers from fallback", "shed (over in-flight cap)"));
        for (Map.Entry<Contender, Result> e : results.entrySet()) {
            Result r = e.getValue();
            table.row(e.getKey().name(), Format.rate(r.sent()), Format.rate(r.admitted()), Format.rate(r.maxAdmitted()),
                    Format.rate(r.storeCalls()), Format.ratio(r.callsPerCheck()), Format.count(r.fallback()) + " (" + Format.percent((double) r.fallback() / Math.max(1, r.sentInRun())) + ")",
                    Format.count(r.shed()));
        }
        table.row("design", "20,000/s", "20,000/s", "≤ 25,000/s", "400/s with leases (20,000/s per request)", "0.02", "–", "–");
        section.table(table);
        section.table(WriteUps.localAnswersTable(results.entrySet().stream()
                .filter(e -> !e.getKey().baseline())
                .collect(java.util.stream.Collectors.toMap(e -> e.getKey().name(), e -> e.getValue().local(),
                        (a, b) -> a, LinkedHashMap::new)),
                results.entrySet().stream().filter(e -> !e.getKey().baseline())
                        .collect(java.util.stream.Collectors.toMap(e -> e.getKey().name(), e -> e.getValue().checks(),
                                (a, b) -> a, LinkedHashMap::new))));

        List<String> categories = new ArrayList<>();
        List<Double> calls = new ArrayList<>();
        for (Map.Entry<Contender, Result> e : results.entrySet()) {
            categories.add(e.getKey().name());
            calls.add(e.getValue().storeCalls());
        }
        Map<String, List<Double>> series = new LinkedHashMap<>();
        series.put("store calls/s for the hot key", calls);
        section.chart(charts.bars("s2-hot-key", "Store calls per second for one hot key (20,000 req/s, 50 pods)", "contender",
                "store calls/s (log scale)", categories, series, true, false, new Charts.Reference("design with leases: 400/s", 400)));

        Result optimized = results.get(Contender.OPTIMIZED);
        section.check("Hot key: ≤ 400 store calls/s", Format.rate(optimized.storeCalls()), optimized.storeCalls() <= 400);
        section.check("Hot key: admitted ≤ limit (25,000/s) in every window", Format.rate(optimized.maxAdmitted()),
                optimized.maxAdmitted() <= limit);
        Result perRequest = results.get(Contender.PER_REQUEST);
        if (perRequest.fallback() > 0.01 * perRequest.sentInRun()) {
            section.note("Tollgate NONE did not sustain " + Format.rate(options.rate(OFFERED)) + " script calls on one key on this "
                    + "machine beside the load generator: " + Format.percent((double) perRequest.fallback() / perRequest.sentInRun())
                    + " of its checks were answered by the fallback bucket (store timeouts opened the shard's breaker), so its "
                    + "store-call rate is what the machine could carry, not 20,000/s.");
        }
        for (Map.Entry<Contender, Result> e : results.entrySet()) {
            Result r = e.getValue();
            if (r.late() > 0) {
                section.note(e.getKey().name() + ": the sender itself fell behind its schedule (" + Format.count(r.late())
                        + " requests sent over 10 ms late, at most " + Format.millis(r.maxLag() * 1e9)
                        + "); they still count in the second they were due, but the machine was saturated.");
            }
        }
        WriteUps.noteIfOptimizationsInactive(section, results.get(Contender.PER_REQUEST).storeCalls(), optimized.storeCalls());
        return section;
    }
}
