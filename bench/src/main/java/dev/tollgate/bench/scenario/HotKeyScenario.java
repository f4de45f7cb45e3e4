package dev.tollgate.bench.scenario;

import dev.tollgate.bench.Bench;
import dev.tollgate.bench.Scenario;
import dev.tollgate.bench.fleet.Contender;
import dev.tollgate.bench.fleet.Fleet;
import dev.tollgate.bench.fleet.LocalAnswers;
import dev.tollgate.bench.fleet.TollgatePod;
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
import dev.tollgate.limiter.hotkeys.HotKeys;
import dev.tollgate.limiter.rules.StaticRuleBook;
import dev.tollgate.store.read.PodHotKeys;

import java.util.ArrayList;
import java.util.HashMap;
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

    /** Background while the hot key is found: a spray of distinct keys and ten warm ones, all on the same rule. */
    private static final double FLOOD = 5_000;
    private static final double WARM = 5_000;
    private static final int WARM_KEYS = 10;
    /** Issue 31's target: the hot key first in the fleet's hot-key list within this long. */
    private static final double FOUND_TARGET_S = 10;

    /**
     * How long after the hot key's first request it was first in the fleet's hot-key list (the pods' tops summed per key,
     * as rules-service's GET /v1/hot-keys sums them), asked every 100 ms; NaN when not within twice the target.
     */
    record Found(double seconds, String firstBefore) {
    }

    @Override
    public Section run(Bench bench, Charts charts) {
        Map<Contender, Result> results = new LinkedHashMap<>();
        for (Contender contender : CONTENDERS) {
            System.out.printf("  scenario 2: %s%n", contender.name());
            results.put(contender, runOnce(bench, contender));
            bench.pause();
        }
        Map<Contender, Found> found = new LinkedHashMap<>();
        for (Contender contender : List.of(Contender.PER_REQUEST, Contender.OPTIMIZED)) {
            System.out.printf("  scenario 2: %s, time until the hot key is first%n", contender.name());
            found.put(contender, timeUntilFirst(bench, contender));
            bench.pause();
        }
        Section section = write(bench, charts, results);
        writeFound(bench, section, found);
        return section;
    }

    /*
     * Not time-scaled in a measuring run: the pods' sketches count in 10 s windows of real time, and the background must
     * fill one before the hot key starts, or the key would only have to beat an empty window. A run scaled below 1 (the
     * smoke test's) keeps a scaled fill of at least a second: its figure then says nothing, and its 22 s were a tenth of CI's
     * bench time.
     */
    private Found timeUntilFirst(Bench bench, Contender contender) {
        var options = bench.options();
        String hot = bench.key("s2_found");
        String warmBase = bench.key("s2_warm");
        String floodBase = bench.key("s2_ip");
        Fleet fleet = bench.fleet(contender, Bench.PODS, new StaticRuleBook(List.of(Plans.PARTNER)));
        double background = options.rate(FLOOD) + options.rate(WARM);
        double floodShare = options.rate(FLOOD) / background;
        OpenLoop.Sender backgroundSender = sequence -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            String key = random.nextDouble() < floodShare ? floodBase + "_" + sequence : warmBase + "_" + random.nextInt(WARM_KEYS);
            return fleet.pod(random.nextInt(fleet.size())).check(partner(key));
        };
        double fill = HotKeys.WINDOW_NANOS / 1e9 + 1;
        if (options.timeScale() < 1) {
            fill = Math.max(1, options.seconds(fill));
        }
        OpenLoop warmUp = new OpenLoop(bench.newRun(fill, null), background, MAX_IN_FLIGHT, backgroundSender);
        warmUp.runUntil(fill);
        warmUp.drain(2);

        double hotRate = options.rate(OFFERED);
        double total = hotRate + background;
        CheckRequest hotRequest = partner(hot);
        OpenLoop.Sender mixed = sequence -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            return random.nextDouble() < hotRate / total
                    ? fleet.pod(random.nextInt(fleet.size())).check(hotRequest)
                    : backgroundSender.send(sequence);
        };
        OpenLoop load = new OpenLoop(bench.newRun(2 * FOUND_TARGET_S, null), total, MAX_IN_FLIGHT, mixed);
        String first = null;
        for (int step = 1; step <= 20 * FOUND_TARGET_S; step++) {
            load.runUntil(step / 10.0);
            first = fleetFirst(fleet);
            if (hot.equals(first)) {
                load.drain(2);
                return new Found(step / 10.0, null);
            }
        }
        load.drain(2);
        return new Found(Double.NaN, first);
    }

    private static CheckRequest partner(String key) {
        return new CheckRequest(Bench.DOMAIN, List.of(CheckEntry.of(Plans.PARTNER.id(), key, 1)));
    }

    /** The key with the most store calls over every pod's top, as rules-service merges the pods' reports. */
    private static String fleetFirst(Fleet fleet) {
        Map<String, Long> calls = new HashMap<>();
        for (int i = 0; i < fleet.size(); i++) {
            if (fleet.pod(i) instanceof TollgatePod pod) {
                for (HotKeys.HotKey key : pod.limiter().hotKeys().top(PodHotKeys.MAX_ENTRIES)) {
                    calls.merge(key.key(), key.calls(), Long::sum);
                }
            }
        }
        return calls.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse(null);
    }

    private void writeFound(Bench bench, Section section, Map<Contender, Found> found) {
        var options = bench.options();
        section.method("Time until the hot key is first: " + Bench.PODS + " pods take a background of "
                + Format.rate(options.rate(FLOOD)) + " distinct keys (each seen once) and " + Format.rate(options.rate(WARM))
                + " over " + WARM_KEYS + " warm keys for one 10 s window of the pods' hot-key sketches and a second more; then "
                + "a key starts at " + Format.rate(options.rate(OFFERED)) + " among them. Every 100 ms the pods' tops (32 keys "
                + "each, by store calls) are summed per key, as rules-service's GET /v1/hot-keys sums them, until the hot key "
                + "is first.");
        Table table = new Table(null, List.of("contender", "time until the hot key is first"));
        for (Map.Entry<Contender, Found> e : found.entrySet()) {
            Found f = e.getValue();
            table.row(e.getKey().name(), Double.isNaN(f.seconds())
                    ? "not within " + Format.seconds(2 * FOUND_TARGET_S) + " (first: " + f.firstBefore() + ")"
                    : Format.seconds(f.seconds()));
        }
        table.row("issue 31", "≤ 10 s");
        section.table(table);
        Found optimized = found.get(Contender.OPTIMIZED);
        section.check("Hot key: first in the fleet's hot-key list within 10 s", Double.isNaN(optimized.seconds())
                ? "not within " + Format.seconds(2 * FOUND_TARGET_S) : Format.seconds(optimized.seconds()),
                optimized.seconds() <= FOUND_TARGET_S);
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
