package dev.tollgate.bench.scale;

import dev.tollgate.bench.Bench;
import dev.tollgate.bench.BenchOptions;
import dev.tollgate.bench.Scenario;
import dev.tollgate.bench.report.Charts;
import dev.tollgate.bench.report.Format;
import dev.tollgate.bench.report.Section;
import dev.tollgate.bench.report.Table;
import dev.tollgate.store.key.UsageKeys;
import dev.tollgate.testsupport.postgres.Postgres;
import dev.tollgate.testsupport.redis.RedisCluster;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The control path at fleet scale (issue 15): a real PostgreSQL (test-support's embedded server), a real
 * rules-service and a real budget-rebalancer, each a JVM of its own started from its Boot jar, three
 * regions' Redis Clusters, N budget keys, and M simulated pods long-polling the one rules-service. Every
 * key has usage in every region in every window and 5% of them move per cycle ({@link Churn}); once per
 * cycle a rule is changed through rules-service's API and each pod's arrival of that revision is timed.
 */
public final class ScaleScenario implements Scenario {

    static final String TOKEN = "scale-bench-token-0123456789";
    private static final String PROBE_RULE = "scale-probe";
    private static final Pattern CYCLE_LINE = Pattern.compile("cycle (\\w+): window (\\d+), (\\d+) keys with usage, (\\d+) written, "
            + "(\\d+) reset, (\\d+) deferred, (\\d+) regions unreachable, (\\d+) ms");
    /** Cycles run before the measured ones: the rebalancer's first load of every key, the pods' first snapshots. */
    private static final int WARM_CYCLES = 2;
    /** The lag the rebalancer reads a closed window with (its default usage-lag), plus a margin for its cycle to start. */
    private static final long SAMPLE_OFFSET_MS = 2_000;
    /** When, after a cycle starts, the probe rule is changed: while the rebalancer's revision is in flight to the pods. */
    private static final long PROBE_DELAY_MS = 3_000;

    /** What one sampling period (one rebalancer cycle) measured. */
    record Period(int cycle, long window, String outcome, long keysWithUsage, long written, long deferred, long cycleMillis,
                  double rebalancerHeap, double rebalancerLive, long revisions, double answersPerPod, double bytesPerPod,
                  double rulesCores, double rulesHeap, double pgActiveMillis, double probeAllMillis) {
    }

    @Override
    public int number() {
        return BenchOptions.SCALE_SCENARIO;
    }

    @Override
    public String title() {
        return "The control path at fleet scale: budget keys, simulated pods, the rebalancer's cycle";
    }

    @Override
    public Section run(Bench bench, Charts charts) {
        BenchOptions options = bench.options();
        ScaleOptions scale = options.scale();
        Section section = new Section(number(), title());
        try {
            return measure(bench, scale, section, charts);
        } catch (SQLException | IOException e) {
            throw new IllegalStateException("scenario 9 failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("scenario 9 interrupted", e);
        }
    }

    private Section measure(Bench bench, ScaleOptions scale, Section section, Charts charts)
            throws SQLException, IOException, InterruptedException {
        Churn churn = new Churn(scale.keys());
        Path logs = bench.options().reportDir().resolve("report").resolve("s9-logs");
        System.out.printf("  scenario 9: %,d keys, %d pods, %d measured cycles; starting two more Redis Clusters and PostgreSQL%n",
                scale.keys(), scale.pods(), scale.cycles());
        List<CompletableFuture<RedisCluster>> starting = List.of(
                CompletableFuture.supplyAsync(() -> RedisCluster.builder().start()),
                CompletableFuture.supplyAsync(() -> RedisCluster.builder().start()));
        List<RedisCluster> extra = new ArrayList<>();
        try {
            for (CompletableFuture<RedisCluster> future : starting) {
                extra.add(future.join());
            }
            // ap-south, eu-west: clusters of their own; us-east, the rules-service's region: the bench's own cluster
            List<RedisCluster> regions = List.of(extra.get(0), extra.get(1), bench.cluster());
            try (Postgres postgres = Postgres.startPrivate()) {
                String url = postgres.newDatabase("scale");
                return measure(bench, scale, section, charts, churn, regions, postgres, url, logs);
            }
        } finally {
            extra.forEach(RedisCluster::close);
            starting.forEach(f -> f.thenAccept(RedisCluster::close));
        }
    }

    private Section measure(Bench bench, ScaleOptions scale, Section section, Charts charts, Churn churn, List<RedisCluster> regions,
                            Postgres postgres, String url, Path logs) throws SQLException, IOException, InterruptedException {
        List<Integer> ports = RedisCluster.reservePorts(2);
        Map<String, String> database = Map.of("spring.datasource.url", url, "spring.datasource.username", postgres.username(),
                "spring.datasource.password", postgres.password());
        Map<String, String> rulesProperties = new LinkedHashMap<>(database);
        rulesProperties.put("spring.profiles.active", "dev");
        rulesProperties.put("tollgate.security.dev-token", TOKEN);
        rulesProperties.put("tollgate.usage.region", "us-east");
        rulesProperties.put("tollgate.usage.default-share", "0.60");
        rulesProperties.put("spring.data.redis.cluster.nodes", regions.get(2).clusterNodes());
        long started = System.nanoTime();
        try (ServiceProcess rules = ServiceProcess.start("rules-service", scale.rulesJar(), List.of("-Xmx" + scale.rulesHeap(), "-XX:+ExitOnOutOfMemoryError"),
                rulesProperties, ports.get(0), TOKEN, logs, Duration.ofMinutes(3));
             Connection sql = DriverManager.getConnection(url, postgres.username(), postgres.password())) {
            RulesApi api = new RulesApi(rules.base(), TOKEN);
            for (String rule : Churn.RULES) {
                api.put(rule, 1000);
            }
            api.put(PROBE_RULE, 1);
            long seedStarted = System.nanoTime();
            long rows = BudgetSeed.copy(sql, churn);
            double seedSeconds = (System.nanoTime() - seedStarted) / 1e9;
            System.out.printf("  scenario 9: %,d budget rows seeded in %.1f s%n", rows, seedSeconds);

            Map<String, String> rebalancerProperties = new LinkedHashMap<>(database);
            rebalancerProperties.put("tollgate.region", "us-east");
            rebalancerProperties.put("spring.data.redis.cluster.nodes", regions.get(2).clusterNodes());
            for (int r = 0; r < Churn.REGIONS.size(); r++) {
                String region = Churn.REGIONS.get(r);
                rebalancerProperties.put("tollgate.regions." + region + ".default-share", Double.toString(Churn.DEFAULT_SHARES[r]));
                if (r != 2) {
                    rebalancerProperties.put("tollgate.regions." + region + ".redis.cluster.nodes", regions.get(r).clusterNodes());
                }
            }
            // 5% of the keys move every cycle: let a cycle write them all, as the churn asks
            rebalancerProperties.put("tollgate.rebalancer.max-keys-per-cycle", Integer.toString(Math.max(25_000, churn.keys() / 10)));
            rebalancerProperties.put("tollgate.rebalancer.read-deadline", "8s");
            rebalancerProperties.put("logging.level.dev.tollgate.rebalancer.schedule.RebalanceCycle", "debug");

            try (UsageWriter usage = new UsageWriter(churn, regions.stream().map(RedisCluster::seedUris).toList());
                 ServiceProcess rebalancer = ServiceProcess.start("budget-rebalancer", scale.rebalancerJar(),
                         List.of("-Xmx" + scale.rebalancerHeap(), "-XX:+ExitOnOutOfMemoryError"), rebalancerProperties, ports.get(1), null, logs, Duration.ofMinutes(3));
                 WatchingPods pods = new WatchingPods(rules.base(), TOKEN, scale.pods(), Churn.REGIONS)) {
                pods.start();
                List<Probe> probes = new ArrayList<>();
                List<Sample> samples = run(scale, usage, rules, rebalancer, pods, api, sql, probes);
                List<Period> periods = periods(samples, probes, rebalancer.logLines("cycle "), pods.pods());
                describe(section, charts, scale, churn, rows, seedSeconds, periods, probes, pods, rebalancer);
                section.tookSeconds((System.nanoTime() - started) / 1e9);
                return section;
            }
        }
    }

    /** Cycle by cycle: write the next window's usage ahead of it, sample at each cycle's start, change the probe rule mid-cycle. */
    private List<Sample> run(ScaleOptions scale, UsageWriter usage, ServiceProcess rules, ServiceProcess rebalancer,
                             WatchingPods pods, RulesApi api, Connection sql, List<Probe> probes)
            throws SQLException, IOException, InterruptedException {
        int cycles = WARM_CYCLES + scale.cycles();
        long firstWindow = UsageKeys.windowStart(System.currentTimeMillis()) + UsageKeys.WINDOW_SECONDS;
        usage.write(firstWindow, 0);
        List<Sample> samples = new ArrayList<>();
        for (int cycle = 0; cycle <= cycles; cycle++) {
            long window = firstWindow + (long) cycle * UsageKeys.WINDOW_SECONDS;
            if (cycle < cycles) {
                long writeStarted = System.nanoTime();
                usage.write(window + UsageKeys.WINDOW_SECONDS, cycle + 1);
                System.out.printf(Locale.ROOT, "  scenario 9: cycle %d's usage written in %.1f s%n", cycle + 1,
                        (System.nanoTime() - writeStarted) / 1e9);
            }
            // the rebalancer reads window W at W + 10 s + its usage lag: from there to the next such instant is W's cycle
            long sampleAt = (window + UsageKeys.WINDOW_SECONDS) * 1000 + SAMPLE_OFFSET_MS;
            sleepUntil(sampleAt);
            samples.add(Sample.take(cycle, window, rules, rebalancer, pods, sql));
            if (cycle == cycles) {
                break;
            }
            // the probe lands mid-cycle, while the feed is busy with the rebalancer's revision
            sleepUntil(sampleAt + PROBE_DELAY_MS);
            long sent = System.nanoTime();
            api.put(PROBE_RULE, 2 + cycle);
            probes.add(new Probe(cycle, probeRevision(sql), sent));
            System.out.printf(Locale.ROOT, "  scenario 9: cycle %d sampled; %d of %d pods hold the previous probe%n", cycle,
                    probes.size() < 2 ? 0 : pods.holding(probes.get(probes.size() - 2).revision()), pods.pods().size());
        }
        // the last probe's stragglers, and the last cycle's log line
        Thread.sleep(5_000);
        return samples;
    }

    /** One period per pair of samples: the rebalancer cycle that read {@code from}'s window, and what the feed did meanwhile. */
    static List<Period> periods(List<Sample> samples, List<Probe> probes, List<String> rebalancerLines, List<WatchingPods.Pod> pods) {
        Map<Long, Matcher> cycles = new LinkedHashMap<>();
        for (String line : rebalancerLines) {
            Matcher m = CYCLE_LINE.matcher(line);
            if (m.find()) {
                cycles.put(Long.parseLong(m.group(2)), m);
            }
        }
        List<Period> periods = new ArrayList<>();
        for (int i = 1; i < samples.size(); i++) {
            Sample from = samples.get(i - 1);
            Sample to = samples.get(i);
            double seconds = (to.nanos() - from.nanos()) / 1e9;
            Matcher m = cycles.get(from.window());
            double probeAll = Double.NaN;
            for (Probe probe : probes) {
                if (probe.cycle() == from.cycle()) {
                    double[] delays = probeDelays(List.of(probe), pods);
                    probeAll = delays.length == 0 ? Double.NaN : delays[delays.length - 1];
                }
            }
            int n = pods.size();
            periods.add(new Period(from.cycle(), from.window(), m == null ? "none" : m.group(1).toLowerCase(Locale.ROOT),
                    m == null ? 0 : Long.parseLong(m.group(3)), m == null ? 0 : Long.parseLong(m.group(4)),
                    m == null ? 0 : Long.parseLong(m.group(6)), m == null ? -1 : Long.parseLong(m.group(8)),
                    to.rebalancerHeap(), to.rebalancerLive(), to.revision() - from.revision(),
                    (to.answers() - from.answers()) / (double) n, (to.wireBytes() - from.wireBytes()) / (double) n,
                    (to.rulesCpu() - from.rulesCpu()) / seconds, to.rulesHeap(), to.pgActiveMillis() - from.pgActiveMillis(), probeAll));
        }
        return periods;
    }

    /** Every pod's delay to each probe, in milliseconds, sorted; a pod that never saw it counts as infinite. */
    static double[] probeDelays(List<Probe> probes, List<WatchingPods.Pod> pods) {
        List<Double> delays = new ArrayList<>();
        for (Probe probe : probes) {
            for (WatchingPods.Pod pod : pods) {
                OptionalLong seen = pod.firstHolding(probe.revision());
                delays.add(seen.isPresent() ? (seen.getAsLong() - probe.sentNanos()) / 1e6 : Double.POSITIVE_INFINITY);
            }
        }
        return delays.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    }

    /** The nearest-rank percentile of sorted values; NaN when there are none. */
    static double percentile(double[] sorted, double fraction) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(fraction * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    private static long probeRevision(Connection sql) throws SQLException {
        try (PreparedStatement select = sql.prepareStatement("SELECT max(revision) FROM rule_history WHERE rule_id = ?")) {
            select.setString(1, PROBE_RULE);
            try (ResultSet result = select.executeQuery()) {
                result.next();
                return result.getLong(1);
            }
        }
    }

    private static void sleepUntil(long epochMillis) throws InterruptedException {
        long wait = epochMillis - System.currentTimeMillis();
        if (wait > 0) {
            Thread.sleep(wait);
        }
    }

    private static String mib(double bytes) {
        return Double.isNaN(bytes) ? "–" : String.format(Locale.ROOT, "%,.0f MiB", bytes / (1 << 20));
    }

    private static String bytes(double bytes) {
        if (Double.isNaN(bytes)) {
            return "–";
        }
        if (bytes >= 1 << 20) {
            return String.format(Locale.ROOT, "%,.1f MiB", bytes / (1 << 20));
        }
        return bytes >= 1 << 10 ? String.format(Locale.ROOT, "%,.1f KiB", bytes / (1 << 10)) : String.format(Locale.ROOT, "%,.0f B", bytes);
    }

    /** A rule change sent mid-cycle: the revision it became visible in, and when it was sent. */
    record Probe(int cycle, long revision, long sentNanos) {
    }

    /** What is read at the start of each period. */
    record Sample(int cycle, long window, long nanos, long wireBytes, long answers, long revision, double rulesCpu, double rulesHeap,
                          double rebalancerHeap, double rebalancerLive, double pgActiveMillis) {

        static Sample take(int cycle, long window, ServiceProcess rules, ServiceProcess rebalancer, WatchingPods pods, Connection sql) throws SQLException {
            long revision;
            double active;
            try (PreparedStatement select = sql.prepareStatement("SELECT (SELECT revision FROM store_revision), "
                    + "(SELECT active_time FROM pg_stat_database WHERE datname = current_database())");
                 ResultSet result = select.executeQuery()) {
                result.next();
                revision = result.getLong(1);
                active = result.getDouble(2);
            }
            return new Sample(cycle, window, System.nanoTime(), pods.wireBytes(), pods.answers(), revision, rules.cpuSeconds(),
                    orNaN(rules.heapUsed()), orNaN(rebalancer.heapUsed()),
                    orNaN(rebalancer.metric("jvm_gc_live_data_size_bytes", labels -> true)), active);
        }

        private static double orNaN(OptionalDouble value) {
            return value.isPresent() ? value.getAsDouble() : Double.NaN;
        }
    }

    private void describe(Section section, Charts charts, ScaleOptions scale, Churn churn, long rows, double seedSeconds,
                          List<Period> periods, List<Probe> probes, WatchingPods pods, ServiceProcess rebalancer) {
        section.method(String.format(Locale.ROOT, "**%,d budget keys** (%d route rules × %,d accounts) over three regions (%s), "
                        + "%,d rows seeded with one `COPY` in %s. A real PostgreSQL 16 (test-support's embedded server), a real "
                        + "**rules-service** (its Boot jar, `-Xmx%s`, dev profile) and a real **budget-rebalancer** (its Boot jar, "
                        + "`-Xmx%s`, its 10 s cycle, `max-keys-per-cycle` %,d), each a JVM of its own; three Redis Clusters, one "
                        + "per region. Every window the bench writes every key's usage in every region (%,d hash fields, the "
                        + "layout the pods' usage recorder writes) and one key in %d swaps its two heavier regions, so ~5%% of "
                        + "the keys move 35 points per cycle and the rest keep their split. **%d simulated pods** long-poll "
                        + "`GET /v1/watch?since=<held revision>&region=<its region>` on a thread each, gzip accepted, as "
                        + "check-service's watcher does (their first requests spread over " + WatchingPods.STARTUP_SPREAD.toSeconds() + " s, as a rolling deploy starts them), and count the bytes each answer carries on the wire. Once per cycle, 3 s "
                        + "after the rebalancer's cycle starts, the rule `%s` is changed through `PUT /v1/rules/{id}` and each pod's "
                        + "first answer at or past that revision is timed from the request. The first %d cycles (the "
                        + "rebalancer's first load of every key, the pods' first snapshots) are not measured.",
                churn.keys(), Churn.RULES.size(), churn.keys() / Churn.RULES.size(), String.join(", ", Churn.REGIONS), rows,
                Format.seconds(seedSeconds), scale.rulesHeap(), scale.rebalancerHeap(), Math.max(25_000, churn.keys() / 10),
                churn.keys() * 3L, Churn.GROUPS, scale.pods(), PROBE_RULE, WARM_CYCLES));
        section.method("Per cycle (a sampling period from one rebalancer cycle's start to the next): the rebalancer's own "
                + "figures (its debug log line per cycle: keys read, written, its cycle time) and its heap in use "
                + "(`jvm_memory_used_bytes`, and the live data after the last old-generation GC); store revisions the pods "
                + "saw; wire bytes per pod; rules-service's CPU (user + system time from `/proc/<pid>/stat`, in cores) and "
                + "heap in use; PostgreSQL's busy time (`pg_stat_database.active_time` of the scenario's database: every "
                + "statement of rules-service and the rebalancer); and when the last pod held the probe's revision.");
        Table table = new Table(null, List.of("cycle", "rebalancer", "keys read", "keys written", "cycle time",
                "rebalancer heap (live after GC)", "revisions", "answers per pod", "bytes per pod", "rules-service CPU", "rules-service heap",
                "PostgreSQL busy", "probe at all pods"));
        // every cycle the rebalancer logged, whichever window it read: on a starved machine its cycles drift from the periods
        Table cycleTable = new Table("Every cycle the rebalancer ran (its debug log line):", List.of("window read", "outcome",
                "keys with usage", "keys written", "deferred", "regions unreachable", "cycle time"));
        for (String line : rebalancer.logLines("cycle ")) {
            Matcher m = CYCLE_LINE.matcher(line);
            if (m.find()) {
                cycleTable.row(m.group(2), m.group(1).toLowerCase(Locale.ROOT), Format.count(Long.parseLong(m.group(3))),
                        Format.count(Long.parseLong(m.group(4))), Format.count(Long.parseLong(m.group(6))), m.group(7),
                        Format.seconds(Long.parseLong(m.group(8)) / 1000.0));
            }
        }
        List<Period> measured = periods.stream().filter(p -> p.cycle() >= WARM_CYCLES).toList();
        for (Period p : periods) {
            table.row((p.cycle() < WARM_CYCLES ? "warm " : "") + p.cycle(), p.outcome(), Format.count(p.keysWithUsage()),
                    Format.count(p.written()), p.cycleMillis() < 0 ? "–" : Format.seconds(p.cycleMillis() / 1000.0),
                    mib(p.rebalancerHeap()) + (p.rebalancerLive() > 0 ? " (" + mib(p.rebalancerLive()) + ")" : ""), Format.count(p.revisions()),
                    Format.ratio(p.answersPerPod()), bytes(p.bytesPerPod()), String.format(Locale.ROOT, "%.2f cores", p.rulesCores()),
                    mib(p.rulesHeap()), String.format(Locale.ROOT, "%,.0f ms", p.pgActiveMillis()),
                    Double.isNaN(p.probeAllMillis()) ? "–" : Double.isInfinite(p.probeAllMillis()) ? "not all"
                            : Format.seconds(p.probeAllMillis() / 1000));
        }
        section.table(table);
        section.table(cycleTable);

        double[] cycleTimes = measured.stream().filter(p -> p.cycleMillis() >= 0).mapToDouble(Period::cycleMillis).toArray();
        double maxCycle = Arrays.stream(cycleTimes).max().orElse(Double.NaN);
        double meanBytes = measured.stream().mapToDouble(Period::bytesPerPod).average().orElse(Double.NaN);
        double meanCores = measured.stream().mapToDouble(Period::rulesCores).average().orElse(Double.NaN);
        double meanWritten = measured.stream().mapToDouble(Period::written).average().orElse(Double.NaN);
        double rowBytes = RulesApi.budgetRowBytes();
        double changedBytes = meanWritten * rowBytes;
        double[] delays = probeDelays(probes.stream().filter(p -> p.cycle() >= WARM_CYCLES).toList(), pods.pods());
        double p50 = percentile(delays, 0.50);
        double p99 = percentile(delays, 0.99);

        Table summary = new Table("Over the " + measured.size() + " measured cycles:", List.of("figure", "value"));
        summary.row("bytes per pod per cycle (wire, gzip), mean", bytes(meanBytes));
        summary.row("changed rows per cycle for a pod's region (keys written; one row per region each), mean", Format.count(meanWritten));
        summary.row("their size as the feed writes them (" + Format.count(rowBytes) + " B a row)", bytes(changedBytes));
        summary.row("rule change seen by every pod: p50 / p99 over pods × probes", Format.seconds(p50 / 1000) + " / " + Format.seconds(p99 / 1000));
        summary.row("rebalancer cycle, longest", Format.seconds(maxCycle / 1000));
        summary.row("rules-service CPU, mean", String.format(Locale.ROOT, "%.2f cores", meanCores));
        summary.row("watch failures (pods' errors, all cycles)", Format.count(pods.failures()) + (pods.failures() > 0 ? " (last: " + pods.lastFailure() + ")" : ""));
        section.table(summary);

        double[] x = measured.stream().mapToDouble(Period::cycle).toArray();
        Map<String, double[]> series = new LinkedHashMap<>();
        series.put("bytes per pod (KiB)", measured.stream().mapToDouble(p -> p.bytesPerPod() / 1024).toArray());
        series.put("changed rows' size (KiB)", measured.stream().mapToDouble(p -> p.written() * rowBytes / 1024).toArray());
        section.chart(charts.lines("s9-bytes-per-pod", "Bytes per pod per cycle vs the changed rows' size", "cycle", "KiB",
                x, series, false));

        section.check("Steady-state bytes per pod per cycle ≤ 2× the changed rows for its region", bytes(meanBytes) + " vs 2 × "
                + bytes(changedBytes), meanBytes <= 2 * changedBytes);
        section.check("A rule change reaches all " + scale.pods() + " pods: p99 ≤ 2 s while the rebalancer churns",
                Format.seconds(p99 / 1000), p99 <= 2_000);
        section.check(String.format(Locale.ROOT, "Rebalancer cycle over %,d keys ≤ 10 s, heap bounded (-Xmx%s)", churn.keys(),
                scale.rebalancerHeap()), Format.seconds(maxCycle / 1000), maxCycle <= 10_000 && rebalancer.isAlive());
        section.check("rules-service serving " + scale.pods() + " watchers on ≤ 1 core", String.format(Locale.ROOT, "%.2f cores", meanCores),
                meanCores <= 1);
    }
}
