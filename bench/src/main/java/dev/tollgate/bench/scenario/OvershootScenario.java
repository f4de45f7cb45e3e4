package dev.tollgate.bench.scenario;

import dev.tollgate.bench.Bench;
import dev.tollgate.bench.Scenario;
import dev.tollgate.bench.fleet.Contender;
import dev.tollgate.bench.fleet.Fleet;
import dev.tollgate.bench.load.OpenLoop;
import dev.tollgate.bench.load.Timeline;
import dev.tollgate.bench.load.Timeline.Series;
import dev.tollgate.bench.report.Charts;
import dev.tollgate.bench.report.Format;
import dev.tollgate.bench.report.Section;
import dev.tollgate.bench.report.Table;
import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.limiter.rules.StaticRuleBook;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;

/**
 * Requirement #6: keys running at 100–150% of their limit, every plan, all at once on 50 pods. What a
 * correct token bucket may admit over a run of T seconds from a full bucket is at most burst + rate × T;
 * anything above that is overshoot.
 */
final class OvershootScenario implements Scenario {

    private static final double[] LEVELS = {1.00, 1.10, 1.25, 1.50};
    private static final List<Rule> PLANS = List.of(Plans.ENTERPRISE, Plans.GROWTH, Plans.FREE);
    private static final int MAX_IN_FLIGHT = 20_000;
    private static final List<Contender> CONTENDERS = List.of(Contender.BASELINE, Contender.PER_REQUEST,
            Contender.LEASES_ONLY, Contender.OPTIMIZED);

    /** One key of the run: its plan, the level it is offered at, and what happened to it. */
    record KeyResult(Rule plan, double level, long sent, long admitted, double seconds) {

        double bound() {
            return Plans.bucket(plan).burst() + Plans.bucket(plan).ratePerS() * seconds;
        }

        /** What an exact bucket would admit: everything offered, up to the bound. */
        double exact() {
            return Math.min(sent, bound());
        }

        /** Admitted above the bound, as a share of rate × T (requirement #6). */
        double overshoot() {
            return Math.max(0, admitted - bound()) / (Plans.bucket(plan).ratePerS() * seconds);
        }

        /** Admitted against an exact bucket, signed, as a share of rate × T. */
        double versusExact() {
            return (admitted - exact()) / (Plans.bucket(plan).ratePerS() * seconds);
        }
    }

    @Override
    public int number() {
        return 4;
    }

    @Override
    public String title() {
        return "Overshoot for keys at 100–150% of their limit";
    }

    @Override
    public Section run(Bench bench, Charts charts) {
        Map<Contender, List<KeyResult>> results = new LinkedHashMap<>();
        for (Contender contender : CONTENDERS) {
            System.out.printf("  scenario 4: %s%n", contender.name());
            results.put(contender, runOnce(bench, contender));
            bench.pause();
        }
        return write(bench, charts, results);
    }

    private List<KeyResult> runOnce(Bench bench, Contender contender) {
        var options = bench.options();
        double seconds = options.seconds(10);
        int keys = PLANS.size() * LEVELS.length;
        CheckRequest[] requests = new CheckRequest[keys];
        double[] weights = new double[keys];
        double total = 0;
        for (int p = 0; p < PLANS.size(); p++) {
            for (int l = 0; l < LEVELS.length; l++) {
                int k = p * LEVELS.length + l;
                Rule plan = PLANS.get(p);
                String key = bench.key("s4_" + plan.id() + "_" + Math.round(LEVELS[l] * 100));
                requests[k] = new CheckRequest(Bench.DOMAIN, List.of(CheckEntry.of(plan.id(), key, 1)));
                weights[k] = Plans.bucket(plan).ratePerS() * LEVELS[l];
                total += weights[k];
            }
        }
        double[] cumulative = new double[keys];
        double sum = 0;
        for (int k = 0; k < keys; k++) {
            sum += weights[k];
            cumulative[k] = sum;
        }
        LongAdder[] sent = new LongAdder[keys];
        LongAdder[] admitted = new LongAdder[keys];
        for (int k = 0; k < keys; k++) {
            sent[k] = new LongAdder();
            admitted[k] = new LongAdder();
        }
        Fleet fleet = bench.fleet(contender, Bench.PODS, new StaticRuleBook(PLANS));
        Timeline timeline = bench.newRun(seconds, null);
        double totalRate = total * options.loadScale();
        OpenLoop load = new OpenLoop(timeline, Math.max(5, totalRate), MAX_IN_FLIGHT, sequence -> {
            double r = ThreadLocalRandom.current().nextDouble() * cumulative[keys - 1];
            int k = 0;
            while (k < keys - 1 && r >= cumulative[k]) {
                k++;
            }
            int key = k;
            sent[key].increment();
            return fleet.pod(ThreadLocalRandom.current().nextInt(fleet.size())).check(requests[key]).thenApply(answer -> {
                if (answer.admitted()) {
                    admitted[key].increment();
                }
                return answer;
            });
        });
        load.runUntil(seconds);
        load.drain(2);
        List<KeyResult> out = new ArrayList<>();
        for (int p = 0; p < PLANS.size(); p++) {
            for (int l = 0; l < LEVELS.length; l++) {
                int k = p * LEVELS.length + l;
                out.add(new KeyResult(PLANS.get(p), LEVELS[l], sent[k].sum(), admitted[k].sum(), seconds));
            }
        }
        if (timeline.sum(Series.FALLBACK, 0, seconds) > 0) {
            System.out.printf("    %s: %d answers from fallback%n", contender.name(), timeline.sum(Series.FALLBACK, 0, seconds));
        }
        return out;
    }

    private Section write(Bench bench, Charts charts, Map<Contender, List<KeyResult>> results) {
        var options = bench.options();
        double seconds = options.seconds(10);
        Section section = new Section(number(), title());
        section.method("Twelve keys at once, one per plan (Enterprise 1,000/s burst 2,000; Growth 100/s burst 200; "
                + "Free 10/s burst 20) and level (offered at 100%, 110%, 125% and 150% of the plan's rate), each request "
                + "on a random one of " + Bench.PODS + " pods, open-loop, for " + Format.seconds(seconds) + " from fresh "
                + "(full) buckets" + (options.loadScale() != 1 ? " (offered rates scaled by " + options.loadScale() + ")" : "")
                + ". A correct token bucket admits at most burst + rate × T over the run; **overshoot** is what was admitted "
                + "above that, as a share of rate × T (requirement #6: under 5%). The cells show admitted against an "
                + "exact bucket (everything offered, up to that bound), signed: below zero is under-admission (a pod's "
                + "slice too small, or lease tokens stranded on idle pods).");
        List<String> header = new ArrayList<>();
        header.add("key");
        header.add("offered");
        for (Contender contender : CONTENDERS) {
            header.add(contender.name());
        }
        Table table = new Table(null, header);
        int rows = PLANS.size() * LEVELS.length;
        for (int i = 0; i < rows; i++) {
            KeyResult first = results.get(CONTENDERS.get(0)).get(i);
            List<String> cells = new ArrayList<>();
            cells.add(first.plan().id() + " at " + Math.round(first.level() * 100) + "%");
            cells.add(Format.count(first.sent()) + " in " + Format.seconds(first.seconds()));
            for (Contender contender : CONTENDERS) {
                cells.add(Format.signedPercent(results.get(contender).get(i).versusExact()));
            }
            table.row(cells);
        }
        List<String> worst = new ArrayList<>();
        worst.add("**worst overshoot above the bound**");
        worst.add("");
        for (Contender contender : CONTENDERS) {
            worst.add("**" + Format.percent(worstOvershoot(results.get(contender))) + "**");
        }
        table.row(worst);
        section.table(table);

        List<String> categories = new ArrayList<>();
        for (KeyResult r : results.get(CONTENDERS.get(0))) {
            categories.add(r.plan().id().substring(0, 3) + " " + Math.round(r.level() * 100) + "%");
        }
        Map<String, List<Double>> series = new LinkedHashMap<>();
        for (Contender contender : CONTENDERS) {
            List<Double> values = new ArrayList<>();
            for (KeyResult r : results.get(contender)) {
                values.add(r.exact() == 0 ? 0 : r.admitted() / r.exact());
            }
            series.put(contender.name(), values);
        }
        section.chart(charts.bars("s4-overshoot", "Admitted ÷ what an exact token bucket admits (1.0 = exact)", "plan and offered level",
                "admitted ÷ exact", categories, series, false, false, new Charts.Reference("requirement #6: +5%", 1.05)));

        double optimized = worstOvershoot(results.get(Contender.OPTIMIZED));
        double leases = worstOvershoot(results.get(Contender.LEASES_ONLY));
        section.check("Overshoot < 5% (requirement #6), Tollgate ALL", Format.percent(optimized), optimized < 0.05);
        // 0.5%: the measurement's resolution (the run's T is the sender's, the buckets refill on Redis TIME)
        section.check("Leases alone never overshoot (≤ 0.5%, the measurement's resolution)", Format.percent(leases), leases <= 0.005);
        return section;
    }

    private static double worstOvershoot(List<KeyResult> results) {
        double worst = 0;
        for (KeyResult r : results) {
            worst = Math.max(worst, r.overshoot());
        }
        return worst;
    }
}
