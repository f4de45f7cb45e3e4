package dev.tollgate.bench.scenario;

import dev.tollgate.bench.Bench;
import dev.tollgate.bench.Scenario;
import dev.tollgate.bench.fleet.Contender;
import dev.tollgate.bench.fleet.Fleet;
import dev.tollgate.bench.fleet.LocalAnswers;
import dev.tollgate.bench.load.OpenLoop;
import dev.tollgate.bench.load.Timeline;
import dev.tollgate.bench.load.Timeline.Series;
import dev.tollgate.bench.report.Charts;
import dev.tollgate.bench.report.Format;
import dev.tollgate.bench.report.Section;
import dev.tollgate.bench.report.Table;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
        Map<Mix.Routing, Map<Contender, Result>> results = new EnumMap<>(Mix.Routing.class);
        for (Mix.Routing routing : Mix.Routing.values()) {
            Map<Contender, Result> byContender = new LinkedHashMap<>();
            for (Contender contender : CONTENDERS) {
                System.out.printf("  scenario 3: %s, %s%n", routing.label, contender.name());
                byContender.put(contender, runOnce(bench, contender, routing, bench.options().seconds(3), bench.options().seconds(6)));
                bench.pause();
            }
            results.put(routing, byContender);
        }
        return write(bench, charts, results);
    }

    static void warmUp(Bench bench, Contender contender, double seconds) {
        runOnce(bench, contender, Mix.Routing.SPREAD, 0, seconds);
        bench.pause();
    }

    private static Result runOnce(Bench bench, Contender contender, Mix.Routing routing, double warm, double measure) {
        var options = bench.options();
        double rate = options.rate(Mix.NOMINAL_RATE);
        Mix mix = new Mix(bench, routing, rate, Bench.PODS);
        Fleet fleet = bench.fleet(contender, Bench.PODS, Mix.RULES);
        Timeline timeline = bench.newRun(warm + measure, Mix::classOf);
        timeline.countClassesFrom(warm);
        long from = timeline.startNanos() + (long) (warm * 1e9);
        long to = timeline.startNanos() + (long) ((warm + measure) * 1e9);
        LongAdder[] sent = adders();
        LongAdder[] admitted = adders();
        OpenLoop load = new OpenLoop(timeline, rate, MAX_IN_FLIGHT, sequence -> {
            Mix.Kind kind = mix.pickKind();
            Mix.Client client = mix.pick(kind);
            long intended = timeline.startNanos() + (long) (sequence * 1e9 / rate);
            boolean counted = intended >= from && intended < to;
            if (counted) {
                sent[kind.ordinal()].increment();
            }
            return fleet.pod(client.pod(fleet.size())).check(client.request()).thenApply(answer -> {
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

    private Section write(Bench bench, Charts charts, Map<Mix.Routing, Map<Contender, Result>> results) {
        var options = bench.options();
        Section section = new Section(number(), title());
        double rate = options.rate(Mix.NOMINAL_RATE);
        StringBuilder keys = new StringBuilder();
        for (Mix.Kind kind : Mix.Kind.values()) {
            keys.append(keys.isEmpty() ? "" : "; ").append(kind.label).append(": ").append(kind.keys).append(" keys (")
                    .append(kind.plan.id()).append(' ').append(Plans.bucket(kind.plan).ratePerS()).append("/s burst ").append(Plans.bucket(kind.plan).burst())
                    .append(") at ").append(Format.rate(Mix.perKeyRate(kind, rate))).append(" each, ")
                    .append(Mix.connections(kind, rate, Bench.PODS)).append(" connection(s)");
        }
        section.method("Offered " + Format.rate(rate) + " open-loop over " + Bench.PODS + " pods, as the design's mix: 10% of "
                + "checks from clients already over their limit, and of the rest 75% Enterprise, 15% Growth, 10% Free. " + keys
                + ". Every check has two entries on the same key: the plan's account bucket and a route bucket ("
                + Plans.bucket(Plans.ROUTE).ratePerS() + "/s burst " + Plans.bucket(Plans.ROUTE).burst() + "), so one script call updates both. Counted over "
                + Format.seconds(options.seconds(6)) + " after a " + Format.seconds(options.seconds(3)) + " warm-up: store calls "
                + "(script calls at the engine's store port) divided by checks offered. The stages switch the optimizations on "
                + "one at a time, as the design's table does; the per-pod-local baseline makes no store calls at all and is "
                + "listed for what it admits.");
        section.method("Three routings of the same mix. **Keep-alive** (how a gateway fleet behind an L4 balancer sees its "
                + "clients): each client sends over its own connections, each held by one pod, about rate × response time of "
                + "them (Little's law, " + Format.millis(Mix.RESPONSE_TIME_S * 1e9) + " responses), on pods picked at random "
                + "per client. **Random pod**: every check on a random pod, the worst case for anything a pod remembers "
                + "(leases, denies), e.g. clients that open a new connection per request. **Key affinity**: every check on "
                + "its key's pod, as `tollgate-client` routes it (rendezvous hashing of the key over the pods' addresses, "
                + "its own `Rendezvous` class), so one pod holds each key's lease and its remembered denies; the pods still "
                + "count " + Bench.PODS + " live pods, so a lease is still sized for " + Bench.PODS + " pods.");
        for (Map.Entry<Mix.Routing, Map<Contender, Result>> byRouting : results.entrySet()) {
            section.table(mixTable(byRouting.getKey(), byRouting.getValue()));
        }
        section.note("Columns over-limit … Free: store calls per check of that class of client. \"admitted\": the share of each "
                + "class's checks that were allowed (over-limit clients send 10× their limit, so an exact limiter admits ~10% of them).");
        for (Map.Entry<Mix.Routing, Map<Contender, Result>> byRouting : results.entrySet()) {
            Map<String, LocalAnswers> local = new LinkedHashMap<>();
            Map<String, Long> checks = new LinkedHashMap<>();
            for (Map.Entry<Contender, Result> e : byRouting.getValue().entrySet()) {
                if (!e.getKey().baseline()) {
                    local.put(e.getKey().name() + ", " + byRouting.getKey().shortName, e.getValue().local());
                    checks.put(e.getKey().name() + ", " + byRouting.getKey().shortName, e.getValue().checks());
                }
            }
            section.table(WriteUps.localAnswersTable(local, checks));
        }
        for (Map.Entry<Mix.Routing, Map<Contender, Result>> byRouting : results.entrySet()) {
            Result optimized = byRouting.getValue().get(Contender.OPTIMIZED);
            double weighted = 0;
            StringBuilder terms = new StringBuilder();
            for (Mix.Kind kind : Mix.Kind.values()) {
                double perCheck = optimized.callsPerCheck(kind);
                weighted += kind.share * (Double.isNaN(perCheck) ? 0 : perCheck);
                terms.append(terms.isEmpty() ? "" : " + ").append(Format.ratio(kind.share)).append(" × ").append(Format.ratio(perCheck));
            }
            section.note("The design's arithmetic with this run's per-class figures (Tollgate ALL, " + byRouting.getKey().shortName
                    + "): " + terms + " = " + Format.ratio(weighted) + " store calls per check; the design assumes 0.10 × 0 + "
                    + "0.675 × 0.1 + 0.135 × 0.5 + 0.09 × 1 = 0.23.");
        }
        // the best each class can do when every check lands on a random pod, with the design's 1 s lease and 1 s deny memory
        double growthPerPod = Mix.perKeyRate(Mix.Kind.GROWTH, rate) / Bench.PODS;
        double spareUsed = 1 - Math.exp(-growthPerPod);
        double overPerPod = Mix.perKeyRate(Mix.Kind.OVER, rate) / Bench.PODS;
        double overBest = 1 / (1 + overPerPod);
        double floor = Mix.Kind.OVER.share * overBest + Mix.Kind.ENTERPRISE.share * 0.1
                + Mix.Kind.GROWTH.share / (1 + spareUsed) + Mix.Kind.FREE.share;
        section.note("Why a random pod per check cannot reach the design's figure with its lease formula: a Growth bucket "
                + "(200) leases 2 over " + Bench.PODS + " pods only while full, and the spare request is used only if the client's "
                + "next check lands on the same pod within the lease's 1 s; at " + Format.rate(growthPerPod) + " per pod that "
                + "happens " + Format.percent(spareUsed) + " of the time, so Growth costs at least " + Format.ratio(1 / (1 + spareUsed))
                + " calls per check. An over-limit client comes back to a given pod " + Format.rate(overPerPod) + ", and a deny is "
                + "remembered for at most 1 s (so that a raised limit is seen), so it costs at least " + Format.ratio(overBest)
                + " even when the deny queue makes every deny last that full second. With Enterprise at the design's 0.1 and Free "
                + "at 1: at least " + Format.ratio(floor) + " store calls per check.");

        List<String> categories = new ArrayList<>();
        Map<String, List<Double>> series = new LinkedHashMap<>();
        for (Mix.Kind kind : Mix.Kind.values()) {
            series.put(kind.label, new ArrayList<>());
        }
        for (Map.Entry<Mix.Routing, Map<Contender, Result>> byRouting : results.entrySet()) {
            for (Map.Entry<Contender, Result> e : byRouting.getValue().entrySet()) {
                if (e.getKey().baseline()) {
                    continue;
                }
                categories.add(e.getKey().name() + ", " + byRouting.getKey().shortName);
                Result r = e.getValue();
                for (Mix.Kind kind : Mix.Kind.values()) {
                    series.get(kind.label).add(r.checks() == 0 ? 0 : (double) r.callsByClass().getOrDefault(kind.prefix(), 0L) / r.checks());
                }
            }
        }
        double perRequest = results.get(Mix.Routing.KEEP_ALIVE).get(Contender.PER_REQUEST).callsPerCheck();
        section.chart(charts.bars("s3-traffic-mix", "Store calls per check at the design's traffic mix, by client class",
                "stage, routing", "store calls per check (stacked by class)", categories, series, false, true,
                new Charts.Reference("target: 25% of per request", 0.25 * perRequest)));

        for (Map.Entry<Mix.Routing, Map<Contender, Result>> byRouting : results.entrySet()) {
            Map<Contender, Result> r = byRouting.getValue();
            double optimized = r.get(Contender.OPTIMIZED).callsPerCheck() / r.get(Contender.PER_REQUEST).callsPerCheck();
            section.check("Traffic mix, " + byRouting.getKey().label + ": store updates per check ≤ 25% of per request",
                    Format.percent(optimized), optimized <= 0.25);
        }
        WriteUps.noteIfOptimizationsInactive(section, perRequest, results.get(Mix.Routing.KEEP_ALIVE).get(Contender.OPTIMIZED).callsPerCheck());
        return section;
    }

    private static Table mixTable(Mix.Routing routing, Map<Contender, Result> results) {
        Table table = new Table("**" + routing.label + "**", List.of("contender", "store calls per check", "vs per request", "design",
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
        return table;
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
