package dev.tollgate.bench.scenario;

import dev.tollgate.bench.Bench;
import dev.tollgate.bench.Scenario;
import dev.tollgate.bench.fleet.Contender;
import dev.tollgate.bench.fleet.CountingStore;
import dev.tollgate.bench.fleet.Fleet;
import dev.tollgate.bench.load.OpenLoop;
import dev.tollgate.bench.load.Timeline;
import dev.tollgate.bench.load.Timeline.Series;
import dev.tollgate.bench.report.Charts;
import dev.tollgate.bench.report.Format;
import dev.tollgate.bench.report.Section;
import dev.tollgate.bench.report.Table;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * What "a denied request spends nothing" costs in store calls. The limits of one key are one
 * all-or-nothing script, so the design's mix (account and route bucket on one key) never refunds; a
 * refund call is made only for a check whose groups on different keys disagree (mixed verdicts), for
 * each group that spent in the store and admitted. The same mix with the route bucket on a key of its
 * own shows that cost.
 */
final class RefundsScenario implements Scenario {

    private static final int MAX_IN_FLIGHT = 20_000;
    private static final List<Contender> CONTENDERS = List.of(Contender.PER_REQUEST, Contender.OPTIMIZED);

    record Result(long checks, long denied, long spends, long refunds) {

        double perCheck(long count) {
            return checks == 0 ? Double.NaN : (double) count / checks;
        }
    }

    @Override
    public int number() {
        return 7;
    }

    @Override
    public String title() {
        return "Refunds: extra store calls only on mixed verdicts";
    }

    @Override
    public Section run(Bench bench, Charts charts) {
        var options = bench.options();
        double rate = options.rate(Mix.NOMINAL_RATE);
        Section section = new Section(number(), title());
        section.method("The design's traffic mix (scenario 3) at " + Format.rate(rate) + " open-loop over " + Bench.PODS
                + " pods, each client over its own keep-alive connections, counted over " + Format.seconds(options.seconds(6))
                + " after a " + Format.seconds(options.seconds(3)) + " warm-up. **One key**: as the design sends it, the account "
                + "and route buckets on the client's key, one script call. **Two keys**: the route bucket keyed `<key>.route`, "
                + "another slot, so a check is two script calls and an over-limit client's check is denied by its account "
                + "while its route admits (a mixed verdict): the route's spend is then given back. Calls counted at the store "
                + "port by script: `spend` (checks and lease calls) and `refund`.");
        Table table = new Table("Store calls per check, by script", List.of("layout", "contender", "checks", "denied",
                "spend calls per check", "refund calls per check", "refunds per denied check"));
        Result sameKey = null;
        List<String> categories = new ArrayList<>();
        Map<String, List<Double>> series = new LinkedHashMap<>();
        series.put("spend", new ArrayList<>());
        series.put("refund", new ArrayList<>());
        for (boolean twoKeys : new boolean[] {false, true}) {
            for (Contender contender : CONTENDERS) {
                System.out.printf("  scenario 7: %s, %s%n", twoKeys ? "two keys" : "one key", contender.name());
                Result r = runOnce(bench, contender, twoKeys, options.seconds(3), options.seconds(6));
                bench.pause();
                if (!twoKeys && contender == Contender.OPTIMIZED) {
                    sameKey = r;
                }
                categories.add((twoKeys ? "two keys, " : "one key, ") + contender.name());
                series.get("spend").add(r.perCheck(r.spends()));
                series.get("refund").add(r.perCheck(r.refunds()));
                table.row(twoKeys ? "two keys" : "one key", contender.name(), Format.count(r.checks()), Format.count(r.denied()),
                        Format.ratio(r.perCheck(r.spends())), Format.ratio(r.perCheck(r.refunds())),
                        r.denied() == 0 ? "–" : Format.ratio((double) r.refunds() / r.denied()));
            }
        }
        section.table(table);
        section.chart(charts.bars("s7-refunds", "Store calls per check by script: limits on one key vs on two",
                "layout, contender", "store calls per check (stacked by script)", categories, series, false, true, null));
        section.note("A refund is one call on the admitting group's slot, not awaited by the check. With leases (ALL) an admitted "
                + "request taken from a pod's lease goes back on the lease without a call, so ALL refunds less often than NONE.");
        section.check("The design's mix (limits of a check on one key): no refund calls", Format.count(sameKey.refunds()),
                sameKey.refunds() == 0);
        return section;
    }

    private static Result runOnce(Bench bench, Contender contender, boolean twoKeys, double warm, double measure) {
        double rate = bench.options().rate(Mix.NOMINAL_RATE);
        Mix mix = new Mix(bench, Mix.Routing.KEEP_ALIVE, rate, Bench.PODS, twoKeys);
        Fleet fleet = bench.fleet(contender, Bench.PODS, Mix.RULES);
        Timeline timeline = bench.newRun(warm + measure, null);
        long from = timeline.startNanos() + (long) (warm * 1e9);
        long to = timeline.startNanos() + (long) ((warm + measure) * 1e9);
        LongAdder denied = new LongAdder();
        OpenLoop load = new OpenLoop(timeline, rate, MAX_IN_FLIGHT, sequence -> {
            Mix.Client client = mix.pick(mix.pickKind());
            long intended = timeline.startNanos() + (long) (sequence * 1e9 / rate);
            boolean counted = intended >= from && intended < to;
            return fleet.pod(client.pod(fleet.size())).check(client.request()).thenApply(answer -> {
                if (counted && !answer.admitted()) {
                    denied.increment();
                }
                return answer;
            });
        });
        load.runUntil(warm);
        CountingStore store = bench.store();
        long spends = store.calls("spend");
        long refunds = store.calls("refund");
        load.runUntil(warm + measure);
        load.drain(2);
        return new Result(timeline.sum(Series.SENT, warm, warm + measure), denied.sum(),
                store.calls("spend") - spends, store.calls("refund") - refunds);
    }
}
