package dev.tollgate.bench;

import dev.tollgate.bench.load.Interference;
import dev.tollgate.bench.report.Charts;
import dev.tollgate.bench.report.ReportWriter;
import dev.tollgate.bench.report.Section;
import dev.tollgate.bench.scenario.Scenarios;

import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Runs the bench: starts a Redis Cluster, warms the JIT, runs the chosen scenarios in order and writes
 * {@code README.md} with its charts. {@code java -jar bench/target/tollgate-bench.jar --help} lists the options.
 */
public final class BenchMain {

    private static final List<String> LIMITS = List.of(
            "The live pod count is handed to the engines by the bench (their `livePods` supplier), not read from the "
                    + "heartbeat registry in Redis, so autoscaling takes effect at once here; with the registry it takes a few seconds.",
            "All simulated pods share one Lettuce client (one connection per Redis node), where real pods have one each; "
                    + "the per-pod engine state (leases, deny cache, local buckets) is separate.",
            "One region only: region budgets, and latency across regions, are not exercised.",
            "Store failures are not injected (breakers and fallback buckets are covered by the limiter's tests); answers "
                    + "that came from the fallback anyway because a command timed out are counted in the tables.",
            "The store's command timeout is " + "set per run (`--command-timeout-ms`, 50 ms unless stated) rather than the "
                    + "production 5 ms, so that this saturated 2-core box measures the limiter's arithmetic rather than its fail-open path.");

    private BenchMain() {
    }

    private static double loadAverage() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    public static void main(String[] args) {
        if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
            System.out.println(BenchOptions.usage());
            return;
        }
        BenchOptions options;
        try {
            options = BenchOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        Path report = run(options).readme();
        System.out.println("report written to " + report.toAbsolutePath());
        System.exit(0);
    }

    /** What one bench run wrote. */
    public record Result(Path readme, List<Section> sections) {
    }

    public static Result run(BenchOptions options) {
        long started = System.nanoTime();
        Instant startedAt = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        // before the run writes its charts into the work tree, which would read as uncommitted changes
        String engine = BenchJar.builtCommit();
        Charts charts = new Charts(options.reportDir());
        List<Section> sections = new ArrayList<>();
        String redisVersion;
        double loadBefore = loadAverage();
        double otherCoreSeconds;
        try (Bench bench = Bench.start(options); Interference interference = Interference.start()) {
            redisVersion = bench.redisVersion();
            System.out.printf("cluster up at %s; warming up for %.0f s%n", bench.cluster().seedUris(), options.warmupSeconds());
            Scenarios.warmUp(bench, options.warmupSeconds());
            for (int number : options.scenarios()) {
                Scenario scenario = Scenarios.byNumber(number);
                System.out.printf("scenario %d: %s%n", number, scenario.title());
                long scenarioStarted = System.nanoTime();
                double otherBefore = interference.otherCoreSeconds();
                Section section = scenario.run(bench, charts);
                section.tookSeconds((System.nanoTime() - scenarioStarted) / 1e9);
                double otherCores = (interference.otherCoreSeconds() - otherBefore) / section.seconds();
                if (otherCores >= 0.2) {
                    section.note(String.format(Locale.ROOT, "**Other processes on the machine used %.1f of its %d cores on "
                            + "average during this scenario**, taking them from the engines, the load generator and Redis: "
                            + "its numbers are noisier and slower than on a quiet machine.", otherCores,
                            Runtime.getRuntime().availableProcessors()));
                }
                System.out.printf("scenario %d took %.0f s%n", number, section.seconds());
                sections.add(section);
            }
            otherCoreSeconds = interference.otherCoreSeconds();
        }
        Map<String, String> facts = new LinkedHashMap<>();
        facts.put("Started", startedAt.toString());
        facts.put("Took", String.format(Locale.ROOT, "%.0f s, cluster start and warm-up included", (System.nanoTime() - started) / 1e9));
        facts.put("Machine", Runtime.getRuntime().availableProcessors() + " cores, " + System.getProperty("os.name") + " "
                + System.getProperty("os.arch") + ", Java " + System.getProperty("java.version") + " ("
                + System.getProperty("java.vm.name") + "), max heap " + Runtime.getRuntime().maxMemory() / (1 << 20) + " MiB");
        facts.put("Engine", "the limiter as built from `" + engine + "` (stamped into the jar when it was built; "
                + "\"dirty\": built with uncommitted changes)");
        facts.put("Redis", redisVersion + ", 3 primaries, no replicas, on loopback");
        facts.put("Store command timeout", options.commandTimeout().toMillis() + " ms");
        facts.put("Other processes", String.format(Locale.ROOT, "used %.1f cores on average during the run (CPU time of "
                + "the whole machine less the bench's own and its Redis servers')", otherCoreSeconds / ((System.nanoTime() - started) / 1e9)));
        facts.put("Load average before the run", String.format(Locale.ROOT, "%.2f (1 minute; above ~0.5 means something "
                + "else was busy when it started; a scenario during which other processes took cores says so)", loadBefore));
        facts.put("Scales", "time × " + options.timeScale() + ", load × " + options.loadScale() + ", repeats " + options.repeats());
        String command = BenchJar.BUILD + "\n" + BenchJar.RUN + options.commandLine();
        Path readme = ReportWriter.write(options.reportDir(), command, facts, sections, LIMITS);
        return new Result(readme, List.copyOf(sections));
    }
}
