package dev.tollgate.bench.soak;

import dev.tollgate.bench.BenchJar;
import dev.tollgate.bench.BenchOptions;
import dev.tollgate.bench.load.Stats;
import dev.tollgate.bench.report.Charts;
import dev.tollgate.bench.report.Format;
import dev.tollgate.bench.report.Section;
import dev.tollgate.bench.report.Table;
import dev.tollgate.bench.soak.Drift.Judgement;
import dev.tollgate.bench.soak.Ledger.Window;
import dev.tollgate.bench.soak.SoakScenario.Run;
import dev.tollgate.bench.wire.ChartPod;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.DoublePredicate;
import java.util.stream.Collectors;

/**
 * Scenario 10's write-up: a verdict per pod and series, the fault ledger, the series over time (condensed here, whole
 * in {@code report/s10-soak-samples.csv}), charts, and the section on its own in {@code report/s10-soak.md}, stamped
 * with the commit the bench was built from and the pod jar's digest.
 */
final class SoakReport {

    private SoakReport() {
    }

    /** One pod's judged life: which one, from when, and each series' judgement. */
    record PodVerdicts(ChartPod pod, int life, double lifeStart, double judgedFrom, List<PodSample> samples, Map<Measure, Judgement> byMeasure) {
    }

    static Section write(Run run, SoakScenario scenario, Charts charts, Path folder, BenchOptions options) {
        Section section = new Section(scenario.number(), scenario.title());
        SoakOptions soak = run.options();
        List<PodVerdicts> verdicts = new ArrayList<>();
        for (int i = 0; i < run.pods().size(); i++) {
            verdicts.add(judge(run, i));
        }
        method(section, run);
        for (PodVerdicts v : verdicts) {
            section.table(verdictTable(run, v));
        }
        section.table(ledgerTable(run));
        section.table(storeCallsTable(run));
        for (int i = 0; i < run.pods().size(); i++) {
            section.table(overTime(run, i));
        }
        charts(section, charts, run);
        notes(section, run, verdicts);
        for (PodVerdicts v : verdicts) {
            for (Measure measure : Measure.BOUNDED) {
                Judgement j = v.byMeasure().get(measure);
                section.check("Soak, " + v.pod().name() + ": " + measure.label + " flat over " + SoakScenario.minutes(run.seconds())
                                + " (last third's median − first third's ≤ " + measure.format(j.tolerance()) + ")",
                        j.verdict() == Drift.Verdict.NOT_JUDGED ? "not judged (" + j.samples() + " samples)"
                                : measure.formatSigned(j.change()), j.verdict() == Drift.Verdict.FLAT);
            }
        }
        Window all = run.ledger().sum(0, run.seconds() + 30, -1);
        section.check("Soak: every check answered as docs/failure-modes.md promises (fail open from fallback, fail closed denied, malformed refused)",
                Format.count(all.count(Outcome.WRONG)) + " wrong of " + Format.count(all.sent()), all.count(Outcome.WRONG) == 0);
        long unansweredOutsidePodKills = unansweredOutsidePodKills(run);
        section.check("Soak: every check after the warm-up answered, but those in flight on a pod when it was killed",
                Format.count(unansweredOutsidePodKills) + " unanswered", unansweredOutsidePodKills == 0);
        writeCsv(folder, run);
        writeMarkdown(folder, run, section, options);
        return section;
    }

    // ---- judging

    static PodVerdicts judge(Run run, int podIndex) {
        List<PodSample> all = run.samples().get(podIndex);
        TreeSet<Integer> lives = all.stream().map(PodSample::life).collect(Collectors.toCollection(TreeSet::new));
        double warmup = run.options().warmupSeconds();
        int best = lives.isEmpty() ? 1 : lives.first();
        long bestCount = -1;
        for (int life : lives) {
            double from = lifeStart(run, podIndex, life) + warmup;
            long count = all.stream().filter(s -> s.life() == life && s.seconds() >= from).count();
            if (count > bestCount) {
                best = life;
                bestCount = count;
            }
        }
        int life = best;
        List<PodSample> samples = all.stream().filter(s -> s.life() == life).toList();
        double start = lifeStart(run, podIndex, life);
        double from = start + warmup;
        Map<Measure, Judgement> byMeasure = new EnumMap<>(Measure.class);
        double[] seconds = samples.stream().mapToDouble(PodSample::seconds).toArray();
        for (Measure measure : Measure.values()) {
            byMeasure.put(measure, Drift.judge(seconds, measure.values(samples), from, measure.tolerance));
        }
        return new PodVerdicts(run.pods().get(podIndex), life, start, from, samples, byMeasure);
    }

    private static double lifeStart(Run run, int podIndex, int life) {
        double[] starts = run.lifeStarts().get(podIndex);
        return life <= 1 ? 0 : starts[Math.min(starts.length - 1, life - 1)];
    }

    // ---- tables

    private static void method(Section section, Run run) {
        SoakOptions soak = run.options();
        section.method(String.format(Locale.ROOT, "**Two check-service pods** from the packaged jar (`%s`, sha256 `%s…`, built %s; a "
                        + "copy taken at the start, so a pod started again mid-soak runs the same jar), each a JVM of its own in the Helm "
                        + "chart's shape: the chart's JVM flags and collector with Spring AOT on, a management port of its own "
                        + "(`/actuator/prometheus` there), the gRPC port, no JMX agent, `tollgate.pods.min=2`, and the production store "
                        + "timeout, **5 ms**. Rules from a rules-service address that refuses (none runs): each pod enforces its saved "
                        + "snapshot, and its watcher retries all along. **One Redis Cluster** (%s) of 3 primaries with a replica each, "
                        + "node timeout 5 s (the chart's), `cluster-require-full-coverage no`, started by the bench (test-support's "
                        + "`RedisCluster`).", run.jar().getFileName(), run.jarSha256().substring(0, 16), run.jarBuilt(),
                run.redisVersion()));
        section.method(String.format(Locale.ROOT, "**Load**: open loop at %,.0f checks/s in total for %s (check n due at n ÷ rate, "
                        + "its time counted from then), %.0f%% over HTTP/1.1 (%d keep-alive connections per pod, each check to its key's "
                        + "pod by rendezvous hashing, as tollgate-client sends it) and %.0f%% as Envoy's `ShouldRateLimit` (%d channels "
                        + "per pod, the pods in turn); a pod that refuses a connection is passed over for %d s and the check goes to the "
                        + "other pod (nothing was sent); a check whose connection breaks after it was sent is never sent again. The mix: "
                        + "%s. Rules: %s. Kinds of check: %s.", soak.rate(), SoakScenario.minutes(run.seconds()),
                (1 - SoakLoad.GRPC_SHARE) * 100, SoakLoad.HTTP_CONNECTIONS, SoakLoad.GRPC_SHARE * 100, SoakLoad.GRPC_CHANNELS,
                SoakLoad.POD_DOWN_FOR.toSeconds(), mix(), SoakTraffic.describeRules(), kinds()));
        section.method(String.format(Locale.ROOT, "**Faults**, one every %.0f s from %s on, taking turns: %s. The primary faults take the "
                        + "shards in turn. Each fault's window in the ledger runs from %.0f s before it (a check due then may still be in "
                        + "flight when it strikes) until %.0f s after its recovery "
                        + "(the cluster healthy again, or the pod's first enforced verdict). pod-a runs the whole soak; pod-b is the one "
                        + "killed. A check is **in time** if answered within %d ms of when it was due (tollgate-client's default "
                        + "deadline), **late** if after that, **unanswered** if no answer came within %d s or its connection broke; "
                        + "**wrong** is any answer docs/failure-modes.md does not promise for its kind: over HTTP an API check must be a 200 verdict "
                        + "(from the fallback bucket, marked, when its shard cannot answer), a login a 200 verdict not from any fallback "
                        + "or a 503 `store_unavailable` / 504 `store_timeout`, a malformed request a 400 or 422; over gRPC, which marks no "
                        + "fail-open answer, an API call any `OK`/`OVER_LIMIT`, a login `OVER_LIMIT` with `x-tollgate-degraded` when its "
                        + "shard cannot answer, a malformed call `INVALID_ARGUMENT`.",
                soak.faultEverySeconds(), SoakScenario.minutes(soak.faultEverySeconds()),
                java.util.Arrays.stream(Fault.Kind.values()).map(k -> k.label).collect(Collectors.joining("; ")),
                Fault.LEAD_SECONDS, SoakScenario.SETTLE_SECONDS, SoakLoad.IN_TIME.toMillis(), SoakLoad.RESPONSE_TIMEOUT.toSeconds()));
        section.method(String.format(Locale.ROOT, "**Sampled** every %.0f s per pod: from its `/actuator/prometheus`, heap in use "
                        + "(`jvm_memory_used_bytes{area=\"heap\"}`), **heap after GC** (`jvm_gc_live_data_size_bytes`, the old generation "
                        + "after the last major collection; every %.0f s, never during a fault, the bench first forces a full collection "
                        + "with `jcmd <pid> GC.run`, so that figure is the live set: G1 on this heap rarely runs one of its own), "
                        + "**live threads** (`jvm_threads_live_threads`), **open file descriptors** (`process_files_open_files`) and "
                        + "**store calls** by outcome (`tollgate_store_calls_seconds_count`); from `/proc` its **established TCP "
                        + "connections** (the socket inodes of `/proc/<pid>/fd` in `/proc/net/tcp` and `tcp6`), inbound to its ports, "
                        + "to a Redis node, or other; from the load generator the checks it answered. **Verdict** per series: the median "
                        + "of the last third of the samples against the median of the first third, samples of the first %s of a pod's "
                        + "life (its warm-up) left out; **growing** when the change is above the series' tolerance (in each table; why "
                        + "each: `Measure`'s comment, and a note below for the heap). A pod that was killed is judged over its "
                        + "longest life.", soak.sampleSeconds(), soak.gcEverySeconds(), SoakScenario.minutes(soak.warmupSeconds())));
    }

    private static String mix() {
        return java.util.Arrays.stream(SoakTraffic.Kind.values())
                .map(kind -> String.format(Locale.ROOT, "%s %.0f%%", kind.label, kind.share * 100)).collect(Collectors.joining(", "));
    }

    private static String kinds() {
        return String.format(Locale.ROOT, "%,d pro accounts (`pro` and `orders` on the account's key, one script call), %d free accounts "
                        + "at 3× their limit, a new account per API_NEW check (never seen before), %,d login IPs, %d IPs far over the login "
                        + "limit, five malformed bodies in turn (cut-off JSON, an unknown field, no entries, a 300-byte key, cost 0; over "
                        + "gRPC a call without descriptors)", SoakTraffic.ACCOUNTS, SoakTraffic.OVER_LIMIT_ACCOUNTS, SoakTraffic.IPS,
                SoakTraffic.BRUTE_FORCE_IPS);
    }

    private static Table verdictTable(Run run, PodVerdicts v) {
        String lifeText = v.life() == 1 && v.pod().lives() == 1 ? "its one life, the whole soak"
                : "its life " + v.life() + " of " + v.pod().lives() + " (from " + SoakScenario.minutes(v.lifeStart()) + ")";
        Table table = new Table("**" + v.pod().name() + "**, " + lifeText + "; judged from " + SoakScenario.minutes(v.judgedFrom())
                + " on:", List.of("series", "samples judged", "first third, median", "last third, median", "change", "tolerance",
                "max", "trend per hour", "verdict"));
        for (Measure measure : Measure.values()) {
            Judgement j = v.byMeasure().get(measure);
            table.row(measure.label + (measure.mustStayFlat ? "" : " (behaviour, not a bound)"), Integer.toString(j.samples()),
                    measure.format(j.firstMedian()), measure.format(j.lastMedian()), measure.formatSigned(j.change()),
                    measure.format(j.tolerance()), measure.format(j.max()), measure.formatSigned(j.perHour()), j.verdict().label);
        }
        return table;
    }

    /** The fault windows, the forced GCs' and the rest after the warm-up, in the ledger's slots. */
    private static Table ledgerTable(Run run) {
        Table table = new Table("**The fault ledger**: every check by when it was due (checks due in a fault's window count for the "
                + "fault). \"API from fallback\": HTTP checks of API rules answered by a pod's fallback bucket, on the fault's shard / "
                + "on the other shards; \"login denied\": fail-closed checks answered 503/504 (HTTP) or OVER_LIMIT degraded (gRPC).",
                List.of("window", "at", "what", "recovery", "checks due", "in time", "late (of which slow from their send)",
                        "unanswered (broken / timed out / no pod)",
                        "wrong", "API from fallback (shard / elsewhere)", "login denied, fail closed", "rerouted"));
        double warmup = run.options().warmupSeconds();
        table.row(ledgerRow("warm-up", "0:00", "cold pods, first " + SoakScenario.minutes(warmup), "–",
                run.ledger().sum(0, warmup, -1)));
        for (Fault f : run.faults()) {
            Window w = run.ledger().sum(f.windowStart(), f.windowEnd(), f.shard());
            table.row(ledgerRow("fault " + f.number(), SoakScenario.minutes(f.start()), f.kind().label + ": " + f.target()
                    + (f.shard() >= 0 ? ", shard " + f.shard() : ""), f.detail() + String.format(Locale.ROOT, " (window %.0f s)",
                    f.windowEnd() - f.windowStart()), w));
        }
        DoublePredicate inGc = inAny(run.gcWindows());
        DoublePredicate inFault = inAny(run.faults().stream().map(f -> new double[] {f.windowStart(), f.windowEnd()}).toList());
        table.row(ledgerRow("forced GCs", "every " + Format.seconds(run.options().gcEverySeconds()), run.gcWindows().size()
                + " full GCs forced by the bench (`jcmd GC.run`)", "–", run.ledger().sum(s -> s >= warmup && inGc.test(s), -1)));
        table.row(ledgerRow("steady state", SoakScenario.minutes(warmup) + "–" + SoakScenario.minutes(run.seconds()),
                "outside the faults and forced GCs", "–", run.ledger().sum(s -> s >= warmup && s < run.seconds()
                        && !inGc.test(s) && !inFault.test(s), -1)));
        table.row(ledgerRow("whole soak", "0:00–" + SoakScenario.minutes(run.seconds()), "everything", "–",
                run.ledger().sum(0, run.seconds() + 30, -1)));
        return table;
    }

    static DoublePredicate inAny(List<double[]> windows) {
        List<double[]> copy = List.copyOf(windows);
        return seconds -> {
            for (double[] w : copy) {
                if (seconds >= w[0] - Ledger.SLOT_SECONDS && seconds < w[1]) {
                    return true;
                }
            }
            return false;
        };
    }

    private static List<String> ledgerRow(String window, String at, String what, String recovery, Window w) {
        return List.of(window, at, what, recovery, Format.count(w.sent()), Format.count(w.answeredInTime()) + " (" + share(w.answeredInTime(), w.sent()) + ")",
                Format.count(w.late()) + " (" + Format.count(w.lateFromSend()) + ")", Format.count(w.unanswered()) + " (" + w.count(Outcome.BROKEN) + " / " + w.count(Outcome.TIMED_OUT)
                        + " / " + w.count(Outcome.NO_POD) + ")",
                Format.count(w.count(Outcome.WRONG)), Format.count(w.fallbackOnShard()) + " / " + Format.count(w.fallbackElsewhere()),
                Format.count(w.count(Outcome.FAILED_CLOSED)), Format.count(w.rerouted()));
    }

    private static String share(long part, long whole) {
        if (whole == 0) {
            return "–";
        }
        double fraction = (double) part / whole;
        return fraction > 0.999 && part < whole ? String.format(Locale.ROOT, "%.3f%%", fraction * 100) : Format.percent(fraction);
    }

    private static long unansweredOutsidePodKills(Run run) {
        List<double[]> podKills = run.faults().stream().filter(f -> f.kind() == Fault.Kind.KILL_POD)
                .map(f -> new double[] {f.windowStart(), f.windowEnd()}).toList();
        DoublePredicate inKill = inAny(podKills);
        double warmup = run.options().warmupSeconds();
        Window outside = run.ledger().sum(s -> s >= warmup && !inKill.test(s), -1);
        Window inside = run.ledger().sum(inKill, -1);
        // in a pod kill's window only checks cut off in flight (broken) are expected; anything else unanswered counts
        return outside.unanswered() + inside.count(Outcome.TIMED_OUT) + inside.count(Outcome.NO_POD);
    }

    private static Table storeCallsTable(Run run) {
        TreeSet<String> outcomes = new TreeSet<>();
        run.samples().forEach(list -> list.forEach(s -> outcomes.addAll(s.storeCalls().keySet())));
        List<String> header = new ArrayList<>(List.of("pod", "checks answered"));
        outcomes.forEach(o -> header.add("store calls, " + o));
        header.add("per check");
        Table table = new Table("**Store calls** by outcome over the soak (the pods' `tollgate_store_calls_seconds_count`, summed over "
                + "each life's last sample), against the checks each pod answered:", header);
        for (int i = 0; i < run.pods().size(); i++) {
            Map<String, Double> total = new LinkedHashMap<>();
            Map<Integer, PodSample> lastOfLife = new LinkedHashMap<>();
            for (PodSample s : run.samples().get(i)) {
                if (s.scraped()) {
                    lastOfLife.put(s.life(), s);
                }
            }
            lastOfLife.values().forEach(s -> s.storeCalls().forEach((k, v) -> total.merge(k, v, Double::sum)));
            List<PodSample> list = run.samples().get(i);
            long answered = list.isEmpty() ? 0 : list.get(list.size() - 1).answered();
            List<String> row = new ArrayList<>(List.of(run.pods().get(i).name(), Format.count(answered)));
            outcomes.forEach(o -> row.add(Format.count(total.getOrDefault(o, 0.0))));
            double sum = total.values().stream().mapToDouble(Double::doubleValue).sum();
            row.add(answered == 0 ? "–" : String.format(Locale.ROOT, "%.3f", sum / answered));
            table.row(row);
        }
        return table;
    }

    private static Table overTime(Run run, int podIndex) {
        List<PodSample> samples = run.samples().get(podIndex);
        Table table = new Table("**" + run.pods().get(podIndex).name() + " over time** (one sample in " + stride(samples.size())
                + " of " + samples.size() + "; all of them in `report/s10-soak-samples.csv`; \"heap after GC\" is the "
                + "last forced collection's, in brackets how long ago):", List.of("at", "life", "heap after GC", "heap in use", "threads",
                "fds", "connections: in / Redis / other", "store calls/s", "checks/s", "load average"));
        int stride = stride(samples.size());
        PodSample lastForced = null;
        for (int i = 0; i < samples.size(); i++) {
            PodSample s = samples.get(i);
            if (s.forcedGc() && !Double.isNaN(s.liveAfterGc())) {
                lastForced = s;
            }
            if (i % stride != 0 && i != samples.size() - 1) {
                continue;
            }
            PodSample before = i > 0 && samples.get(i - 1).life() == s.life() && samples.get(i - 1).scraped() && s.scraped()
                    ? samples.get(i - 1) : null;
            double dt = before == null ? Double.NaN : s.seconds() - before.seconds();
            table.row(SoakScenario.minutes(s.seconds()), Integer.toString(s.life()),
                    lastForced == null || lastForced.life() != s.life() ? "–"
                            : Measure.HEAP_AFTER_GC.format(lastForced.liveAfterGc()) + " (" + Format.seconds(s.seconds() - lastForced.seconds()) + ")",
                    Measure.HEAP_AFTER_GC.format(s.heapUsed()), Measure.THREADS.format(s.threads()), Measure.FILE_DESCRIPTORS.format(s.fds()),
                    s.connections() == null ? "–" : s.connections().inbound() + " / " + s.connections().redis() + " / " + s.connections().other(),
                    before == null ? "–" : Format.rate((s.storeCallsTotal() - before.storeCallsTotal()) / dt),
                    before == null ? "–" : Format.rate((s.answered() - before.answered()) / dt),
                    String.format(Locale.ROOT, "%.1f", s.loadAverage()));
        }
        return table;
    }

    private static int stride(int samples) {
        return Math.max(1, (int) Math.ceil(samples / 16.0));
    }

    // ---- charts and notes

    private static void charts(Section section, Charts charts, Run run) {
        Map<String, Charts.Curve> heap = new LinkedHashMap<>();
        Map<String, Charts.Curve> resources = new LinkedHashMap<>();
        Map<String, Charts.Curve> calls = new LinkedHashMap<>();
        for (int i = 0; i < run.pods().size(); i++) {
            String name = run.pods().get(i).name();
            List<PodSample> samples = run.samples().get(i);
            List<PodSample> forced = samples.stream().filter(s -> s.forcedGc() && !Double.isNaN(s.liveAfterGc())).toList();
            heap.put(name + ", after a forced GC", curve(forced, s -> s.liveAfterGc() / (1 << 20)));
            resources.put(name + ", threads", curve(samples, PodSample::threads));
            resources.put(name + ", fds", curve(samples, PodSample::fds));
            resources.put(name + ", connections", curve(samples, PodSample::connectionsTotal));
            double[] perCheck = Measure.STORE_CALLS_PER_CHECK.values(samples);
            double[] x = samples.stream().mapToDouble(s -> s.seconds() / 60).toArray();
            calls.put(name, new Charts.Curve(x, perCheck));
        }
        section.chart(charts.curves("s10-soak-heap", "Heap after GC per pod (MiB, after each forced full GC)", "minutes into the soak",
                "MiB", heap, false));
        section.chart(charts.curves("s10-soak-resources", "Live threads, open file descriptors, established connections per pod",
                "minutes into the soak", "count", resources, false));
        section.chart(charts.curves("s10-soak-store-calls", "Store calls per check answered, per pod and sampling interval",
                "minutes into the soak", "store calls per check", calls, false));
    }

    private static Charts.Curve curve(List<PodSample> samples, java.util.function.ToDoubleFunction<PodSample> y) {
        List<PodSample> kept = samples.stream().filter(s -> !Double.isNaN(y.applyAsDouble(s))).toList();
        return new Charts.Curve(kept.stream().mapToDouble(s -> s.seconds() / 60).toArray(), kept.stream().mapToDouble(y).toArray());
    }

    private static void notes(Section section, Run run, List<PodVerdicts> verdicts) {
        for (PodVerdicts v : verdicts) {
            Judgement heap = v.byMeasure().get(Measure.HEAP_AFTER_GC);
            Judgement rate = v.byMeasure().get(Measure.CHECKS_PER_SECOND);
            double[] forcedAt = v.samples().stream().filter(s -> s.forcedGc() && s.seconds() >= v.judgedFrom() && !Double.isNaN(s.liveAfterGc()))
                    .mapToDouble(PodSample::seconds).toArray();
            if (heap.verdict() != Drift.Verdict.NOT_JUDGED && forcedAt.length >= 6) {
                int third = forcedAt.length / 3;
                double between = Stats.median(java.util.Arrays.copyOfRange(forcedAt, forcedAt.length - third, forcedAt.length))
                        - Stats.median(java.util.Arrays.copyOfRange(forcedAt, 0, third));
                double checks = rate.firstMedian() * between;
                section.note(String.format(Locale.ROOT, "%s's heap tolerance (%s) against the checks it answered between the thirds' "
                                + "middles (%s apart, ~%,.0f checks at %s): a leak of more than **%.0f bytes a check** would have crossed it.",
                        v.pod().name(), Measure.HEAP_AFTER_GC.format(heap.tolerance()), Format.seconds(between), checks,
                        Measure.CHECKS_PER_SECOND.format(rate.firstMedian()), heap.tolerance() / checks));
            }
        }
        Map<String, Long> wrong = run.ledger().wrongExamples();
        if (!wrong.isEmpty()) {
            section.note("**Wrong answers**, by example (count): " + wrong.entrySet().stream()
                    .map(e -> "`" + e.getKey().replace("`", "'") + "` (" + e.getValue() + ")").collect(Collectors.joining("; ")));
        }
        Map<String, Long> unanswered = run.ledger().unansweredReasons();
        if (!unanswered.isEmpty()) {
            section.note("**Unanswered checks**, by reason (count): " + unanswered.entrySet().stream()
                    .map(e -> "`" + e.getKey().replace("`", "'") + "` (" + e.getValue() + ")").collect(Collectors.joining("; ")));
        }
        double[] loads = run.samples().stream().flatMap(List::stream).mapToDouble(PodSample::loadAverage).toArray();
        section.note(String.format(Locale.ROOT, "Machine: load average %.1f before, %.1f after, %.1f–%.1f (median %.1f) during the soak "
                        + "on %d cores; the load generator was late to send (over 10 ms) %,d checks, at most %.0f ms; %,d checks shed "
                        + "(over %,d in flight); %,d new accounts named.", run.loadBefore(), run.loadAfter(), Stats.min(loads), Stats.max(loads),
                Stats.median(loads), Runtime.getRuntime().availableProcessors(), run.senderLate(), run.senderMaxLag() * 1000, run.shed(),
                100_000, run.newAccounts()));
    }

    // ---- files

    private static void writeCsv(Path folder, Run run) {
        TreeSet<String> outcomes = new TreeSet<>();
        run.samples().forEach(list -> list.forEach(s -> outcomes.addAll(s.storeCalls().keySet())));
        StringBuilder out = new StringBuilder("seconds,pod,life,pid,forced_gc,heap_used_bytes,live_after_gc_bytes,threads,fds,"
                + "connections_inbound,connections_redis,connections_other,redis_connections_by_port,scraped,answered,load_average");
        outcomes.forEach(o -> out.append(",store_calls_").append(o));
        out.append('\n');
        for (int i = 0; i < run.pods().size(); i++) {
            for (PodSample s : run.samples().get(i)) {
                Sockets.Count c = s.connections();
                String byPort = c == null ? "" : c.redisByPort().entrySet().stream().map(e -> e.getKey() + ":" + e.getValue())
                        .collect(Collectors.joining(" "));
                out.append(String.format(Locale.ROOT, "%.1f,%s,%d,%d,%b,%.0f,%.0f,%.0f,%.0f,%s,%s,%s,%s,%b,%d,%.2f", s.seconds(), run.pods().get(i).name(),
                        s.life(), s.pid(), s.forcedGc(), s.heapUsed(), s.liveAfterGc(), s.threads(), s.fds(),
                        c == null ? "" : c.inbound(), c == null ? "" : c.redis(), c == null ? "" : c.other(), byPort, s.scraped(),
                        s.answered(), s.loadAverage()));
                outcomes.forEach(o -> out.append(',').append(String.format(Locale.ROOT, "%.0f", s.storeCalls().getOrDefault(o, 0.0))));
                out.append('\n');
            }
        }
        write(folder.resolve("s10-soak-samples.csv"), out.toString());

        StringBuilder ledger = new StringBuilder("window,from_s,to_s,shard,sent,in_time,late,late_from_send,enforced,fallback,fallback_on_shard,"
                + "fallback_elsewhere,failed_closed,refused,wrong,broken,timed_out,no_pod,rerouted,detail\n");
        List<Object[]> windows = new ArrayList<>();
        windows.add(new Object[] {"warm-up", 0.0, run.options().warmupSeconds(), -1, ""});
        for (Fault f : run.faults()) {
            windows.add(new Object[] {"fault " + f.number() + " " + f.kind().name().toLowerCase(Locale.ROOT), f.windowStart(), f.windowEnd(),
                    f.shard(), f.target() + ": " + f.detail()});
        }
        windows.add(new Object[] {"whole soak", 0.0, run.seconds() + 30, -1, ""});
        for (Object[] w : windows) {
            Window sum = run.ledger().sum((double) w[1], (double) w[2], (int) w[3]);
            ledger.append(String.format(Locale.ROOT, "%s,%.1f,%.1f,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,\"%s\"%n", w[0], (double) w[1],
                    (double) w[2], (int) w[3], sum.sent(), sum.answeredInTime(), sum.late(), sum.lateFromSend(), sum.count(Outcome.ENFORCED),
                    sum.count(Outcome.FALLBACK), sum.fallbackOnShard(), sum.fallbackElsewhere(), sum.count(Outcome.FAILED_CLOSED),
                    sum.count(Outcome.REFUSED), sum.count(Outcome.WRONG), sum.count(Outcome.BROKEN), sum.count(Outcome.TIMED_OUT),
                    sum.count(Outcome.NO_POD), sum.rerouted(), ((String) w[4]).replace("\"", "'")));
        }
        write(folder.resolve("s10-soak-ledger.csv"), ledger.toString());

        StringBuilder timeline = new StringBuilder("from_s,sent,in_time,late,late_from_send,enforced,fallback,failed_closed,refused,wrong,"
                + "broken,timed_out,no_pod,rerouted\n");
        for (double from = 0; from < run.seconds() + 30; from += 10) {
            Window w = run.ledger().sum(from, from + 10, -1);
            if (w.sent() == 0) {
                continue;
            }
            timeline.append(String.format(Locale.ROOT, "%.0f,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d%n", from, w.sent(), w.answeredInTime(), w.late(),
                    w.lateFromSend(), w.count(Outcome.ENFORCED), w.count(Outcome.FALLBACK), w.count(Outcome.FAILED_CLOSED),
                    w.count(Outcome.REFUSED), w.count(Outcome.WRONG), w.count(Outcome.BROKEN), w.count(Outcome.TIMED_OUT),
                    w.count(Outcome.NO_POD), w.rerouted()));
        }
        write(folder.resolve("s10-soak-ledger-by-10s.csv"), timeline.toString());
    }

    private static void writeMarkdown(Path folder, Run run, Section section, BenchOptions options) {
        StringBuilder out = new StringBuilder("# Scenario 10, the soak: one run\n\n");
        out.append("- **Command**: `").append(BenchJar.RUN).append(options.commandLine()).append("`\n");
        out.append("- **Started**: ").append(run.started()).append('\n');
        out.append("- **Bench built from**: `").append(BenchJar.builtCommit()).append("` (stamped into the jar when it was built)\n");
        out.append("- **check-service jar**: `").append(run.jar().getFileName()).append("`, sha256 `").append(run.jarSha256())
                .append("`, last modified ").append(run.jarBuilt()).append(" (it carries no commit stamp of its own)\n");
        out.append("- **Machine**: ").append(Runtime.getRuntime().availableProcessors()).append(" cores, Java ")
                .append(System.getProperty("java.version")).append(String.format(Locale.ROOT, ", load average %.2f before, %.2f after%n",
                        run.loadBefore(), run.loadAfter()));
        out.append("\n");
        // the section without its "took" line, which the bench adds once the scenario returns
        out.append(section.toMarkdown().replaceAll("_This scenario took [0-9]+ s\\._\\s*$", ""));
        out.append("### Checks\n\n");
        for (Section.Check check : section.checks()) {
            out.append("- ").append(check.met() ? "met" : "**not met**").append(": ").append(check.target()).append(" — ")
                    .append(check.measured()).append('\n');
        }
        write(folder.resolve("s10-soak.md"), out.toString().replace("](report/", "]("));
    }

    private static void write(Path file, String text) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write " + file, e);
        }
    }
}
