package dev.tollgate.bench.scenario;

import dev.tollgate.bench.Bench;
import dev.tollgate.bench.Scenario;
import dev.tollgate.bench.report.Charts;
import dev.tollgate.bench.report.Format;
import dev.tollgate.bench.report.Section;
import dev.tollgate.bench.report.Table;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.limiter.rules.RuleIndex;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;

/**
 * What finding the rules of a check by attributes costs at 10,000 rules: the index the pods build when rules
 * change, beside a scan of every rule per request (what a rule cache without an index does) and beside the floor,
 * one hash look-up of a key made in advance. In one thread, no store: the look-up alone.
 */
final class RuleLookupScenario implements Scenario {

    static final int RULES = 10_000;
    private static final int PLANS = 10;
    private static final int RUNS = 3;

    @Override
    public int number() {
        return 11;
    }

    @Override
    public String title() {
        return "Rule look-up by attributes at 10,000 rules";
    }

    /** One request: a plan and a route; half the routes hit an exact pattern, half a prefix, one in ten none. */
    private record Request(String plan, String route) {
    }

    @Override
    public Section run(Bench bench, Charts charts) {
        List<Rule> rules = rules();
        RuleIndex index = new RuleIndex(rules);
        Map<String, List<Rule>> floor = new HashMap<>();
        Request[] requests = requests(4096);
        for (Request request : requests) {
            floor.put(request.plan() + '\u0000' + request.route(), index.matching("api", request.plan(), request.route()));
        }
        for (Request request : requests) {
            List<String> indexed = index.matching("api", request.plan(), request.route()).stream().map(Rule::id).toList();
            List<String> scanned = scan(rules, request).stream().map(Rule::id).sorted().toList();
            if (!indexed.stream().sorted().toList().equals(scanned)) {
                throw new IllegalStateException("the index and the scan disagree on " + request + ": " + indexed + " vs " + scanned);
            }
        }
        double seconds = bench.options().seconds(2);
        Section section = new Section(number(), title());
        section.method(Format.count(RULES) + " rules of one domain over " + PLANS + " plans: per plan an account-wide rule, and "
                + "route rules, half on exact routes and half on prefix patterns (`/prefix/<n>/*`). " + requests.length
                + " requests cycled (plan, route: an exact route, a path under a prefix, or a route no rule covers), each look-up "
                + "for " + Format.seconds(seconds) + " after as long a warm-up, " + RUNS + " runs, the median shown. **Index**: "
                + "`RuleIndex.matching`, as every check by attributes does. **Scan**: every rule held against the plan and route "
                + "(the same precedence), per request. **Floor**: one `HashMap.get` of the plan and route, the least a look-up costs.");
        Table table = new Table("Nanoseconds per look-up (median of " + RUNS + " runs; the runs)", List.of("look-up", "ns per look-up", "runs", "× floor"));
        double floorNs = measure("floor", requests, r -> floor.get(r.plan() + '\u0000' + r.route()).size(), seconds, table, Double.NaN);
        double indexNs = measure("index", requests, r -> index.matching("api", r.plan(), r.route()).size(), seconds, table, floorNs);
        double scanNs = measure("scan", requests, r -> scan(rules, r).size(), seconds, table, floorNs);
        section.table(table);
        section.note("Both look-ups find the same rules for every request (checked before timing). The index is rebuilt whole when "
                + "a snapshot is applied; at " + Format.count(RULES) + " rules that build took " + Format.millis(buildNanos(rules))
                + " here, off the check path.");
        section.check("A look-up at 10,000 rules costs at most 2 µs (the check's budget is 1 ms at p99)", Format.count(indexNs) + " ns",
                indexNs <= 2_000);
        section.check("The index is at least 100× faster than a scan per request", Format.ratio(scanNs / indexNs) + "×", scanNs / indexNs >= 100);
        return section;
    }

    private static long buildNanos(List<Rule> rules) {
        long start = System.nanoTime();
        new RuleIndex(rules);
        return System.nanoTime() - start;
    }

    private static double measure(String name, Request[] requests, ToIntFunction<Request> lookUp, double seconds, Table table, double floorNs) {
        long sink = 0;
        double[] runs = new double[RUNS];
        for (int run = -1; run < RUNS; run++) {
            long deadline = System.nanoTime() + (long) (seconds * 1e9);
            long count = 0;
            long start = System.nanoTime();
            while (System.nanoTime() < deadline) {
                for (int i = 0; i < 256; i++) {
                    sink += lookUp.applyAsInt(requests[(int) (count++ & (requests.length - 1))]);
                }
            }
            if (run >= 0) {
                runs[run] = (double) (System.nanoTime() - start) / count;
            }
        }
        double[] sorted = runs.clone();
        Arrays.sort(sorted);
        double median = sorted[RUNS / 2];
        List<String> shown = new ArrayList<>();
        for (double r : runs) {
            shown.add(String.format("%.0f", r));
        }
        table.row(name, String.format("%.0f", median), String.join(" / ", shown) + (sink == 42 ? " " : ""),
                Double.isNaN(floorNs) ? "1" : Format.ratio(median / floorNs));
        System.out.printf("  scenario 11: %s %.0f ns per look-up%n", name, median);
        return median;
    }

    static List<Rule> rules() {
        List<Rule> rules = new ArrayList<>(RULES);
        for (int p = 0; p < PLANS; p++) {
            rules.add(Rule.tokenBucket("plan" + p + "-global", "api", 100, 200).withMatch(new Match("plan" + p, null)));
        }
        for (int i = rules.size(); i < RULES; i++) {
            String route = i % 2 == 0 ? "/route/" + i : "/prefix/" + i + "/*";
            rules.add(Rule.tokenBucket("r" + i, "api", 10, 20).withMatch(new Match("plan" + (i % PLANS), route)));
        }
        return rules;
    }

    private static Request[] requests(int count) {
        Request[] requests = new Request[count];
        java.util.Random random = new java.util.Random(11);
        for (int i = 0; i < count; i++) {
            int n = PLANS + random.nextInt(RULES - PLANS);
            String plan = "plan" + (n % PLANS);
            String route = switch (i % 10) {
                case 9 -> "/nowhere/" + n;
                default -> n % 2 == 0 ? "/route/" + n : "/prefix/" + n + "/item/" + i;
            };
            requests[i] = new Request(plan, route);
        }
        return requests;
    }

    /** The same precedence as the index, by holding every rule against the request. */
    static List<Rule> scan(List<Rule> rules, Request request) {
        List<Rule> accountWide = new ArrayList<>();
        List<Rule> best = new ArrayList<>();
        int bestRank = -1;
        for (Rule rule : rules) {
            Match match = rule.match();
            boolean anyPlan = match.coversEveryPlan();
            if (!anyPlan && !match.plan().equals(request.plan())) {
                continue;
            }
            if (match.coversEveryRoute()) {
                accountWide.add(rule);
                continue;
            }
            String route = match.route();
            int rank;
            if (route.endsWith("*")) {
                String prefix = route.substring(0, route.length() - 1);
                rank = request.route().startsWith(prefix) ? prefix.length() * 2 : -1;
            } else {
                rank = route.equals(request.route()) ? 100_000 : -1;
            }
            if (rank < 0) {
                continue;
            }
            rank = rank * 2 + (anyPlan ? 0 : 1);
            if (rank > bestRank) {
                bestRank = rank;
                best.clear();
            }
            if (rank == bestRank) {
                best.add(rule);
            }
        }
        accountWide.addAll(best);
        return accountWide;
    }
}
