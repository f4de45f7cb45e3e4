package dev.tollgate.bench.report;

import dev.tollgate.bench.BenchJar;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Writes the report: a fixed preamble (what the bench is, how to run it, where earlier runs are), then how this run
 * was produced, a summary of the targets and each scenario. The committed bench/README.md is the current
 * report and nothing else (CommittedReportTest); notes about earlier runs live in its git history, not above it.
 */
public final class ReportWriter {

    public static final String FILE = "README.md";

    /** What every report starts with, word for word. */
    public static final String PREAMBLE = "# bench — Tollgate's multi-pod benchmark\n\n"
            + "<!-- Written by dev.tollgate.bench.BenchMain; rerun the command below to update it, don't edit by hand. -->\n\n"
            + "A plain Java program (not a test) that runs simulated gateway pods — independent `Limiter` engines in one JVM, "
            + "each with its own engine state — on a real 3-primary Redis Cluster of `redis-server` processes that it starts "
            + "itself on loopback (test-support's `RedisCluster`). Every scenario runs the **per-pod-local baseline** (each "
            + "pod a token bucket of limit ÷ 50, no shared state) and **Tollgate** (optimizations `ALL`, and `NONE`: one "
            + "exact script per check) side by side in one run; scenario 6 adds Bucket4j, Spring Cloud Gateway's script and "
            + "a fixed window on the same cluster. `./mvnw verify` runs only `BenchSmokeIT`, which runs every scenario for "
            + "about a second at tiny load and checks the report's structure.\n\n"
            + "Run it from the repository's root, when no build is running (the load generator, the engines and Redis share "
            + "the machine's cores):\n\n"
            + "```\n" + BenchJar.BUILD + "\n" + BenchJar.RUN + "\n```\n\n"
            + "runs scenarios 1–8 and writes this page and its charts (`report/`); `--scenarios=<n,...>` picks scenarios "
            + "(9, 10 and 11 run only when named), `--report=<dir>` writes the report elsewhere, and `--help` lists every "
            + "option.\n\n"
            + "This page is the current report, written whole by the run it describes. Earlier runs, and the notes written "
            + "about them, are in its history: `git log -p bench/README.md`.\n\n";

    private ReportWriter() {
    }

    /**
     * @param facts   what this run was (date, machine, versions, options), in order
     * @param command the exact command that produced the report
     */
    public static Path write(Path reportDir, String command, Map<String, String> facts, List<Section> sections, List<String> limits) {
        StringBuilder out = new StringBuilder(PREAMBLE);
        out.append("## How this report was produced\n\n```\n").append(command).append("\n```\n\n");
        out.append("Options (all `--name=value`): `--scenarios=1,2,3,4,5,6,7,8`, `--time-scale=1` (multiplies every phase), "
                + "`--load-scale=1` (multiplies every offered rate), `--repeats=3` (scenarios 5 and 6), `--report=bench`, "
                + "`--command-timeout-ms=50`, `--warmup-s=8`, `--latency-rates=1000,4000`, `--in-flight=64`; scenario 8: `--wire-rates=1000,5000,10000`, `--wire-connections=16`, "
                + "`--wire-protocols=http1,h2c,grpc`, `--wire-jvm=<flags>`, `--wire-pod-jar=<jar>`, `--wire-base-port=0`, `--wire-keys=1000`, "
                + "`--wire-warmup-s=240` (each server and protocol is loaded until its JIT settles, at most this long; real seconds, "
                + "not time-scaled; 0: no warm-up), `--wire-cold-starts=3` (rounds of check-service cold starts, the fat jar and "
                + "`fast-start.sh`'s layouts in turn; 0: none), `--wire-ramp-rounds=3` (rounds of cold ramps: each launch started cold "
                + "and loaded from ready until its JIT settles; 0: none), `--wire-ramp-cap-s=120` (real seconds), "
                + "`--wire-ramp-launches=fat-jar,fat-jar-aot,extracted-aot,fast-start,fast-start-aot,image`, `--wire-ramp-warm-up=on,off` "
                + "(the pod's warm-up before readiness); `--wire-protocols=none --wire-cold-starts=0` runs the cold ramps alone; scenario 9 (the control "
                + "path at scale) runs only when named, from rules-service's and budget-rebalancer's Boot jars (`./mvnw -B -q -pl "
                + "rules-service,budget-rebalancer -am package -DskipTests`): `--scale-keys=1000000`, `--scale-pods=150`, "
                + "`--scale-cycles=6`, `--scale-services=.`, `--scale-rules-heap=2g`, `--scale-rebalancer-heap=1g`; scenario 10 (the "
                + "soak: two check-service pods from its jar, a steady mixed load and a fault every few minutes) runs only when named "
                + "and also writes `report/s10-soak.md` and its CSVs: `--soak-minutes=30`, `--soak-fault-every-s=270`, `--soak-rate=600`, "
                + "`--soak-sample-s=15`, `--soak-gc-every-s=60` (real time, not time-scaled; with the `--wire-*` JVM flags and jar). "
                + "Scenario 8's additions of issue 29: `--wire-mixes=design,store-bound` (the mixes compared with the floor and sent "
                + "to the RLS peer), `--wire-store-keys=20000` (the store-bound mix's keys), `--peer-rls=HOST:PORT` (an "
                + "envoyproxy/ratelimit already running; the bench never builds or starts it) and `--peer-rls-pid=N` (its CPU from "
                + "`/proc/N/stat`). "
                + "In a git worktree, build with `GIT_DIR=$(git rev-parse --git-dir) GIT_WORK_TREE=$(git rev-parse --show-toplevel)` "
                + "in front of the command: the commit stamp's plugin otherwise reads the main checkout's HEAD. "
                + "Run it when no build is running: the load generator, the engines and the three Redis servers share the "
                + "machine's cores.\n\n");
        out.append("## This run\n\n");
        for (Map.Entry<String, String> fact : facts.entrySet()) {
            out.append("- **").append(fact.getKey()).append("**: ").append(fact.getValue()).append('\n');
        }
        out.append("- **Noise**: this is a shared 2-core machine, and the load generator, the engines and Redis run on the same "
                + "cores; single numbers swing by 20–40% between runs. Rates are medians of per-second windows, throughput "
                + "and latency are medians or merges of short repeated runs, and the contenders of a scenario run interleaved "
                + "in one process, so their ratios are more trustworthy than any absolute figure.\n\n");
        out.append("### The issue's targets, as measured in this run\n\n");
        Table summary = new Table(null, List.of("scenario", "target", "measured", "met"));
        for (Section section : sections) {
            for (Section.Check check : section.checks()) {
                summary.row(Integer.toString(section.number()), check.target(), check.measured(), check.met() ? "yes" : "**no**");
            }
        }
        out.append(summary.toMarkdown()).append('\n');
        for (Section section : sections) {
            out.append(section.toMarkdown());
        }
        if (!limits.isEmpty()) {
            out.append("## What this bench does not show\n\n");
            for (String limit : limits) {
                out.append("- ").append(limit).append('\n');
            }
            out.append('\n');
        }
        try {
            Files.createDirectories(reportDir);
            Path file = reportDir.resolve(FILE);
            Files.writeString(file, out.toString());
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("could not write the report to " + reportDir, e);
        }
    }
}
