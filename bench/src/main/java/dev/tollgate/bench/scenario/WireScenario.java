package dev.tollgate.bench.scenario;

import dev.tollgate.bench.Bench;
import dev.tollgate.bench.BenchOptions;
import dev.tollgate.bench.BenchOptions.Protocol;
import dev.tollgate.bench.Scenario;
import dev.tollgate.bench.load.ClosedLoop;
import dev.tollgate.bench.load.OpenLoop;
import dev.tollgate.bench.load.Stats;
import dev.tollgate.bench.load.Timeline;
import dev.tollgate.bench.load.Timeline.Series;
import dev.tollgate.bench.report.Charts;
import dev.tollgate.bench.report.Format;
import dev.tollgate.bench.report.Section;
import dev.tollgate.bench.report.Table;
import dev.tollgate.bench.wire.ColdRamp;
import dev.tollgate.bench.wire.ColdStarts;
import dev.tollgate.bench.wire.JitSettle;
import dev.tollgate.bench.wire.JvmCounters;
import dev.tollgate.bench.wire.PodJar;
import dev.tollgate.bench.wire.Ports;
import dev.tollgate.bench.wire.ServerUnderTest;
import dev.tollgate.bench.wire.WireCheck;
import dev.tollgate.bench.wire.WireClient;
import dev.tollgate.bench.wire.WrkLoad;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.time.Duration;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Issue 13: the check over real sockets. check-service runs from its built jar in a JVM of its own, on this
 * run's Redis Cluster with the mix's rules; beside it, in the same run and with the same JVM flags, the
 * floor: a bare reactor-netty server answering check-service's own answer, canned. Both are driven by the
 * same load generator in the bench's JVM, step by step in turn, over HTTP/1.1 keep-alive, h2c and (the pod
 * only) Envoy's gRPC: at saturation (closed loop) and open loop at fixed rates, with each server's CPU time
 * and allocated bytes read before and after every step. Before a protocol's steps, each server is loaded over it
 * until its JIT has settled ({@link JitSettle}); how long that took is a figure of its own, what a pod
 * the autoscaler adds during a spike goes through.
 */
final class WireScenario implements Scenario {

    private static final int MAX_IN_FLIGHT = 100_000;
    /** Check bodies wrk draws from, in the mix's proportions. */
    private static final int WRK_SAMPLE = 4096;
    /** The longest a step waits for its last answers before cutting them off as failed (time-scaled, at least 1 s). */
    private static final double DRAIN_SECONDS = 5;
    /** How often a warm-up reads the server's compilation time: a closed loop of this length between readings. */
    private static final double SETTLE_READ_SECONDS = 1;
    /**
     * A warm-up slice waits for all its checks (up to the clients' response timeout) before the next starts, so that
     * a cold server's slow first answers never pile up beyond the connections' worth in flight.
     */
    private static final double SLICE_DRAIN_SECONDS = 30;
    /** Issue 29: a pod's checks/s over its first 10 s after ready, against its settled checks/s (real seconds). */
    private static final double RAMP_FIRST_SECONDS = 10;
    private static final double RAMP_TARGET = 0.8;
    /** check-service's own default of {@code tollgate.warm-up.max-duration} (and the chart's), scaled in a time-scaled run. */
    private static final double WARM_UP_MAX_SECONDS = 60;

    /** One measured step against one server. */
    record Step(long checks, long failed, long fallback, long late, double seconds, Histogram latency, JvmCounters.Reading used) {

        double rate() {
            return checks / seconds;
        }

        double cpuMicrosPerCheck() {
            return used.cpuMicrosPer(checks);
        }

        double bytesPerCheck() {
            return used.bytesPer(checks);
        }
    }

    /**
     * One server's warm-up over one protocol: saturation load until its JIT settled, or until the cap.
     *
     * @param seconds              until it settled (or the cap)
     * @param compileMillis        the JIT's compilation time during the warm-up
     * @param lastWindowCompileMillis the JIT's compilation time in the warm-up's last window
     * @param failed               checks that failed or were not answered
     * @param ratePerWindow        checks answered per second in each whole window from the start
     */
    record WarmUp(boolean settled, double seconds, long checksSent, long failed, long compileMillis, long lastWindowCompileMillis,
                  double firstRate, double lastRate, double[] ratePerWindow) {

        /**
         * @param samples  the compilers' totals read during the warm-up, the first before any load
         * @param timeline the warm-up's checks, from the first sample's start
         */
        static WarmUp of(JitSettle rule, List<JitSettle.Sample> samples, boolean settled, Timeline timeline) {
            JitSettle.Sample first = samples.get(0);
            JitSettle.Sample last = samples.get(samples.size() - 1);
            // a warm-up cut shorter than a window by its cap has its whole length as its first and last window
            double window = Math.min(rule.windowSeconds(), last.seconds());
            JitSettle.Sample windowStart = samples.stream().filter(sample -> sample.seconds() <= last.seconds() - window)
                    .reduce((a, b) -> b).orElse(first);
            double[] ratePerWindow = new double[(int) Math.floor(last.seconds() / rule.windowSeconds())];
            for (int i = 0; i < ratePerWindow.length; i++) {
                ratePerWindow[i] = answered(timeline, i * rule.windowSeconds(), (i + 1) * rule.windowSeconds()) / rule.windowSeconds();
            }
            // the last slice's checks were all answered (or given up) before the last reading
            double end = last.seconds() + 1;
            long sent = timeline.sum(Series.SENT, 0, end);
            return new WarmUp(settled, last.seconds(), sent, sent - answered(timeline, 0, end), last.compileMillis() - first.compileMillis(),
                    last.compileMillis() - windowStart.compileMillis(), answered(timeline, 0, window) / window,
                    answered(timeline, last.seconds() - window, last.seconds()) / window, ratePerWindow);
        }

        static long answered(Timeline timeline, double from, double to) {
            return timeline.sum(Series.ALLOWED, from, to) + timeline.sum(Series.DENIED, from, to);
        }
    }

    /** Which server a step ran against: the floor or the pod. */
    enum Server {
        FLOOR("floor"), POD("check-service");

        final String label;

        Server(String label) {
            this.label = label;
        }
    }

    @Override
    public int number() {
        return 8;
    }

    @Override
    public String title() {
        return "check-service over the wire, against the floor";
    }

    @Override
    public Section run(Bench bench, Charts charts) {
        BenchOptions options = bench.options();
        BenchOptions.Wire wire = options.wire();
        Path work;
        try {
            work = Files.createTempDirectory("tollgate-bench-wire-");
            Files.writeString(work.resolve("rules.yml"), WireChecks.rulesFile());
            Files.write(work.resolve("saved-rules-snapshot.json"), WireChecks.snapshot());
        } catch (IOException e) {
            throw new UncheckedIOException("could not prepare scenario 8's work directory", e);
        }
        Mix mix = Mix.overKeys(bench, wire.keys());
        Map<Mix.Client, WireCheck> checks = new IdentityHashMap<>();
        for (Mix.Client client : mix.clients()) {
            checks.put(client, WireChecks.of(client.request()));
        }
        // an Enterprise account, as most checks are: its answer is the size the floor repeats
        byte[] probe = checks.get(mix.pick(Mix.Kind.ENTERPRISE)).json();
        Ports ports = new Ports(wire.basePort());
        ServerUnderTest.PodSettings podSettings = new ServerUnderTest.PodSettings(PodJar.of(wire),
                bench.cluster().clusterNodes(), work.resolve("rules.yml"), options.commandTimeout(), warmUpMax(options));
        System.out.printf("  scenario 8: starting check-service from %s%n", podSettings.jar());
        Map<Integer, Map<Protocol, Map<Server, Step>>> open = new LinkedHashMap<>();
        Map<Protocol, Map<Server, Step>> saturated = new LinkedHashMap<>();
        Map<Protocol, Map<Server, WarmUp>> warmUps = new LinkedHashMap<>();
        Map<Server, WrkSteps> byWrk = new LinkedHashMap<>();
        WrkLoad wrk = WrkLoad.find().map(path -> WrkLoad.of(path, work, sample(mix, checks))).orElse(null);
        if (wrk == null && wire.steps()) {
            System.out.println("  scenario 8: no wrk on the PATH, so no steps driven by it (apt-get install wrk)");
        }
        WireMixes mixes = WireMixes.of(bench, work, () -> checks.get(mix.pick(mix.pickKind())));
        try {
            ServerUnderTest pod = null;
            ServerUnderTest floor = null;
            if (wire.steps()) {
                pod = ServerUnderTest.checkService(podSettings, wire.jvmFlags(), ports, work, probe);
                try {
                    floor = ServerUnderTest.floor(pod.firstAnswer(), wire.jvmFlags(), ports, work, probe);
                    steps(bench, wire, pod, floor, mix, checks, wrk, mixes, warmUps, saturated, open, byWrk);
                } finally {
                    // the servers stop first: nothing else runs while the pods start
                    pod.close();
                    if (floor != null) {
                        floor.close();
                    }
                }
            } else {
                System.out.println("  scenario 8: --wire-protocols=none, so no steps: only the cold starts and the cold ramps");
            }
            ColdStarts.Settings coldSettings = new ColdStarts.Settings(podSettings.jar(), wire.jvmFlags(), podSettings.redisNodes(),
                    work.resolve("saved-rules-snapshot.json"), probe, warmUpMax(options));
            BenchOptions.Ramp ramp = wire.ramp();
            Set<ColdStarts.Launch> launches = EnumSet.noneOf(ColdStarts.Launch.class);
            if (wire.coldStartRounds() > 0) {
                launches.addAll(wire.coldStartLaunches());
            }
            if (ramp.rounds() > 0) {
                launches.addAll(ramp.launches());
            }
            ColdStarts.Prepared prepared = ColdStarts.prepare(coldSettings, launches, work);
            ColdStarts.Result coldStarts = ColdStarts.measure(coldSettings, prepared, wire.coldStartLaunches(), wire.coldStartRounds(), ports, work);
            ColdRamp.Result ramps = ramp.rounds() == 0 ? null
                    : ColdRamp.measure(rampSettings(options, coldSettings, mix, checks), prepared, ports, work);
            Section section = write(bench, charts, podSettings, mix.clients().size(), floor, pod, warmUps, saturated, open, byWrk, coldStarts, ramps);
            if (wire.steps()) {
                mixes.write(section, saturated, open, byWrk);
            }
            return section;
        } finally {
            deleteQuietly(work);
        }
    }

    /** The steps over each protocol, each after its own JIT warm-up. */
    private static void steps(Bench bench, BenchOptions.Wire wire, ServerUnderTest pod, ServerUnderTest floor, Mix mix,
                              Map<Mix.Client, WireCheck> checks, WrkLoad wrk, WireMixes mixes, Map<Protocol, Map<Server, WarmUp>> warmUps,
                              Map<Protocol, Map<Server, Step>> saturated, Map<Integer, Map<Protocol, Map<Server, Step>>> open,
                              Map<Server, WrkSteps> byWrk) {
        BenchOptions options = bench.options();
        Map<Server, ServerUnderTest> servers = Map.of(Server.FLOOR, floor, Server.POD, pod);
        for (Protocol protocol : wire.protocols()) {
            List<Server> against = against(protocol);
            // each protocol's steps right after its own warm-up: another protocol's code run in between could
            // change what the JIT compiled for this one (a call site seeing a second handler type is recompiled)
            for (Server server : wire.warmupSeconds() > 0 ? against : List.<Server>of()) {
                warmUps.computeIfAbsent(protocol, p -> new LinkedHashMap<>())
                        .put(server, warmUp(bench, servers.get(server), protocol, mix, checks));
            }
            for (Server server : against) {
                System.out.printf("  scenario 8: %s, %s at saturation%n", protocol.label, server.label);
                saturated.computeIfAbsent(protocol, p -> new LinkedHashMap<>())
                        .put(server, saturate(bench, servers.get(server), protocol, mix, checks));
            }
            for (int nominal : wire.rates()) {
                for (Server server : against) {
                    System.out.printf("  scenario 8: %s, %s at %s%n", protocol.label, server.label, Format.rate(options.rate(nominal)));
                    open.computeIfAbsent(nominal, r -> new LinkedHashMap<>()).computeIfAbsent(protocol, p -> new LinkedHashMap<>())
                            .put(server, openLoop(bench, servers.get(server), protocol, options.rate(nominal), mix, checks));
                }
            }
            if (protocol == Protocol.HTTP1 && wrk != null) {
                for (Server server : against) {
                    System.out.printf("  scenario 8: %s, %s driven by wrk%n", protocol.label, server.label);
                    byWrk.put(server, wrkSteps(bench, servers.get(server), wrk));
                }
            }
            mixes.afterDesignSteps(protocol, floor, pod);
        }
    }

    /**
     * The pods' warm-up before readiness (and fast-start.sh's training on it), shortened with the run's time scale below 1
     * so that a short run is not a minute per pod start; null at full scale: the pod's own default, the chart's.
     */
    private static Duration warmUpMax(BenchOptions options) {
        return options.timeScale() < 1 ? Duration.ofMillis(Math.max(1000, Math.round(WARM_UP_MAX_SECONDS * options.timeScale() * 1000))) : null;
    }

    /**
     * The cold ramps' settings: the chart's shape as the cold starts have it, the run's store timeout, the JIT warm-up
     * step's client and mix. The pod's own warm-up keeps its defaults (the chart's values) except in a time-scaled run,
     * where its longest run is scaled like every phase, so a smoke run does not wait out a minute of it.
     */
    private static ColdRamp.Settings rampSettings(BenchOptions options, ColdStarts.Settings pod, Mix mix, Map<Mix.Client, WireCheck> checks) {
        BenchOptions.Ramp ramp = options.wire().ramp();
        List<ColdRamp.Variant> variants = new ArrayList<>();
        for (ColdStarts.Launch launch : ramp.launches()) {
            for (boolean warmUp : ramp.warmUp()) {
                variants.add(new ColdRamp.Variant(launch, warmUp));
            }
        }
        return new ColdRamp.Settings(pod, variants, ramp.rounds(), ramp.capSeconds(), RAMP_FIRST_SECONDS, options.wire().connections(),
                List.of("--tollgate.redis.command-timeout=" + options.commandTimeout().toMillis() + "ms"), warmUpMax(options), JitSettle.DEFAULT,
                () -> checks.get(mix.pick(mix.pickKind())));
    }

    /** The floor has no gRPC. */
    private static List<Server> against(Protocol protocol) {
        return protocol == Protocol.GRPC ? List.of(Server.POD) : List.of(Server.FLOOR, Server.POD);
    }

    /**
     * Saturation load on one server over one protocol, unmeasured, until its JIT has settled or the cap (real
     * seconds: the JIT's pace does not follow the time scale): the steps then measure compiled code, not the JIT at
     * work. The load runs in slices of {@link #SETTLE_READ_SECONDS}, each followed by a reading of the compilers' total.
     */
    private static WarmUp warmUp(Bench bench, ServerUnderTest server, Protocol protocol, Mix mix, Map<Mix.Client, WireCheck> checks) {
        BenchOptions options = bench.options();
        double cap = options.wire().warmupSeconds();
        int connections = options.wire().connections();
        JitSettle rule = JitSettle.DEFAULT;
        System.out.printf("  scenario 8: warming %s up over %s until its JIT settles (at most %s)%n", server.name(), protocol.label,
                Format.seconds(cap));
        Timeline timeline = bench.newRun(cap, null);
        ClosedLoop load = new ClosedLoop(timeline, connections);
        List<JitSettle.Sample> samples = new ArrayList<>();
        Optional<JitSettle.Sample> settled = Optional.empty();
        try (WireClient client = connect(server, protocol, connections)) {
            samples.add(new JitSettle.Sample(since(timeline), server.compilationMillis(), 0));
            while (settled.isEmpty() && since(timeline) < cap) {
                load.run(Math.min(cap, since(timeline) + SETTLE_READ_SECONDS), 0, SLICE_DRAIN_SECONDS, null,
                        () -> client.send(checks.get(mix.pick(mix.pickKind()))));
                double now = since(timeline);
                samples.add(new JitSettle.Sample(now, server.compilationMillis(), WarmUp.answered(timeline, 0, now + 1)));
                settled = rule.settledAt(samples);
            }
        }
        WarmUp warmUp = WarmUp.of(rule, samples, settled.isPresent(), timeline);
        double window = Math.min(rule.windowSeconds(), warmUp.seconds());
        System.out.printf("  scenario 8: %s over %s %s; %s checks sent (%s failed), %,d ms compiled (%,d ms in the last %s); "
                        + "checks/s per %s: %s%n",
                server.name(), protocol.label, warmUp.settled() ? "settled after " + Format.seconds(warmUp.seconds())
                        : "had not settled at the cap, " + Format.seconds(cap),
                Format.count(warmUp.checksSent()), Format.count(warmUp.failed()), warmUp.compileMillis(), warmUp.lastWindowCompileMillis(),
                Format.seconds(window), Format.seconds(rule.windowSeconds()),
                warmUp.ratePerWindow().length == 0 ? "–" : String.join(" ", Arrays.stream(warmUp.ratePerWindow()).mapToObj(Format::count).toList()));
        bench.pause();
        return warmUp;
    }

    private static double since(Timeline timeline) {
        return (System.nanoTime() - timeline.startNanos()) / 1e9;
    }

    private static Step saturate(Bench bench, ServerUnderTest server, Protocol protocol, Mix mix, Map<Mix.Client, WireCheck> checks) {
        BenchOptions options = bench.options();
        int connections = options.wire().connections();
        double warm = options.seconds(3);
        double measure = options.seconds(5);
        try (WireClient client = connect(server, protocol, connections)) {
            new ClosedLoop(bench.newRun(warm, null), connections).run(warm, warm, drain(options), null,
                    () -> client.send(checks.get(mix.pick(mix.pickKind()))));
            JvmCounters.Reading before = server.read();
            Timeline timeline = bench.newRun(measure, null);
            Histogram latency = OpenLoop.newHistogram();
            int unanswered = new ClosedLoop(timeline, connections).run(measure, 0, drain(options), latency,
                    () -> client.send(checks.get(mix.pick(mix.pickKind()))));
            JvmCounters.Reading used = server.read().minus(before);
            bench.pause();
            return step(timeline, measure, unanswered, 0, latency, used);
        }
    }

    private static Step openLoop(Bench bench, ServerUnderTest server, Protocol protocol, double rate, Mix mix,
                                 Map<Mix.Client, WireCheck> checks) {
        BenchOptions options = bench.options();
        double warm = options.seconds(2);
        double measure = options.seconds(5);
        try (WireClient client = connect(server, protocol, options.wire().connections())) {
            OpenLoop.Sender sender = sequence -> client.send(checks.get(mix.pick(mix.pickKind())));
            OpenLoop warmUp = new OpenLoop(bench.newRun(warm, null), rate, MAX_IN_FLIGHT, sender);
            warmUp.runUntil(warm);
            warmUp.drain(drain(options));
            JvmCounters.Reading before = server.read();
            Timeline timeline = bench.newRun(measure, null);
            OpenLoop load = new OpenLoop(timeline, rate, MAX_IN_FLIGHT, sender);
            Histogram latency = OpenLoop.newHistogram();
            load.recordLatency(latency, 0);
            load.runUntil(measure);
            int unanswered = load.drain(drain(options));
            JvmCounters.Reading used = server.read().minus(before);
            for (int i = 0; i < unanswered; i++) {
                // never answered: at least as late as the drain lasted
                latency.recordValue((long) (drain(options) * 1e9));
            }
            bench.pause();
            return step(timeline, measure, unanswered, load.late(), latency, used);
        }
    }

    /** The saturation and the paced step of one server with wrk as the load generator, on HTTP/1.1. */
    record WrkSteps(WrkStep saturated, WrkStep paced, double pacedRate) {
    }

    /** One wrk run against one server, with the server's own CPU and allocation over it. */
    record WrkStep(WrkLoad.Result result, JvmCounters.Reading used) {

        double rate() {
            return result.answered() / result.seconds();
        }

        double cpuMicrosPerCheck() {
            return used.cpuMicrosPer(result.answered());
        }

        double bytesPerCheck() {
            return used.bytesPer(result.answered());
        }
    }

    /** Bodies drawn from the mix as the bench's own client draws them: what wrk sends, one at random per request. */
    private static List<byte[]> sample(Mix mix, Map<Mix.Client, WireCheck> checks) {
        List<byte[]> bodies = new ArrayList<>(WRK_SAMPLE);
        for (int i = 0; i < WRK_SAMPLE; i++) {
            bodies.add(checks.get(mix.pick(mix.pickKind())).json());
        }
        return bodies;
    }

    /** wrk at saturation on one server: 3 s unmeasured, then 5 s measured with the server's CPU and allocation (time-scaled). */
    static WrkStep wrkSaturation(Bench bench, ServerUnderTest server, WrkLoad wrk) {
        BenchOptions options = bench.options();
        int connections = options.wire().connections();
        String url = "http://127.0.0.1:" + server.httpPort();
        wrk.saturate(url, connections, options.seconds(3));
        JvmCounters.Reading before = server.read();
        WrkLoad.Result saturated = wrk.saturate(url, connections, options.seconds(5));
        return new WrkStep(saturated, server.read().minus(before));
    }

    private static WrkSteps wrkSteps(Bench bench, ServerUnderTest server, WrkLoad wrk) {
        BenchOptions options = bench.options();
        int connections = options.wire().connections();
        String url = "http://127.0.0.1:" + server.httpPort();
        WrkStep saturation = wrkSaturation(bench, server, wrk);
        double rate = options.rate(options.wire().rates().stream().min(Comparator.comparingInt(r -> Math.abs(r - 5000))).orElseThrow());
        wrk.paced(url, connections, options.seconds(2), rate);
        JvmCounters.Reading before = server.read();
        WrkLoad.Result paced = wrk.paced(url, connections, options.seconds(5), rate);
        WrkStep pacedStep = new WrkStep(paced, server.read().minus(before));
        bench.pause();
        return new WrkSteps(saturation, pacedStep, rate);
    }

    private static double drain(BenchOptions options) {
        return Math.max(1, options.seconds(DRAIN_SECONDS));
    }

    private static WireClient connect(ServerUnderTest server, Protocol protocol, int connections) {
        return WireClient.connect(protocol, "127.0.0.1", protocol == Protocol.GRPC ? server.grpcPort() : server.httpPort(), connections);
    }

    private static Step step(Timeline timeline, double measure, int unanswered, long late, Histogram latency, JvmCounters.Reading used) {
        long answered = timeline.sum(Series.ALLOWED, 0, measure) + timeline.sum(Series.DENIED, 0, measure);
        long failed = timeline.sum(Series.FAILED, 0, measure) + timeline.sum(Series.SHED, 0, measure) + unanswered;
        return new Step(answered, failed, timeline.sum(Series.FALLBACK, 0, measure), late, measure, latency, used);
    }

    private Section write(Bench bench, Charts charts, ServerUnderTest.PodSettings pod, int keys, ServerUnderTest floor, ServerUnderTest checkService,
                          Map<Protocol, Map<Server, WarmUp>> warmUps, Map<Protocol, Map<Server, Step>> saturated, Map<Integer, Map<Protocol, Map<Server, Step>>> open,
                          Map<Server, WrkSteps> byWrk, ColdStarts.Result coldStarts, ColdRamp.Result ramps) {
        BenchOptions options = bench.options();
        BenchOptions.Wire wire = options.wire();
        Section section = new Section(number(), title());
        if (floor == null || checkService == null) {
            section.method("check-service runs from its jar (`" + pod.jar().getFileName() + "`) on this run's Redis Cluster, with the "
                    + "traffic mix's rules and the store's command timeout at " + options.commandTimeout().toMillis() + " ms, in JVMs "
                    + "with `" + String.join(" ", wire.jvmFlags()) + "` (the chart's limits and collector). No steps in this run "
                    + "(`--wire-protocols=none`): no floor, no saturation or open-loop steps, only what follows.");
            writeColdStarts(section, wire, coldStarts);
            writeRamps(section, charts, options, ramps);
            checks(section, options, Map.of(), Map.of(), null, coldStarts);
            return section;
        }
        section.method("check-service runs from its jar (`" + pod.jar().getFileName() + "`) in a JVM of its own, on this run's "
                + "Redis Cluster, with the traffic mix's rules as its static rules file and the store's command timeout at "
                + options.commandTimeout().toMillis() + " ms. Beside it, in the same run, **the floor**: a bare reactor-netty "
                + "server (the transport under WebFlux) in its own JVM that reads each request's body and answers check-service's "
                + "own answer to an Enterprise check, canned (" + floor.firstAnswer().body().length + " bytes of body and the same "
                + "headers): the least any Java HTTP service on this machine does per check. Both JVMs run with `"
                + String.join(" ", wire.jvmFlags()) + "` (the chart's limits and collector). The load generator runs in the "
                + "bench's JVM on one event-loop thread per client, on the same 2 cores as the servers and Redis.");
        JitSettle rule = JitSettle.DEFAULT;
        section.method(wire.warmupSeconds() <= 0 ? "No warm-up before the first step (`--wire-warmup-s=0`): the steps measure the JIT at work too."
                : "Before each protocol's first step, each server is warmed up over that protocol at saturation (" + wire.connections()
                + " checks in flight, closed loop, unmeasured) **until its JIT has settled**: until HotSpot's total compilation time "
                + "(`java.lang:type=Compilation` `TotalCompilationTime`, read over JMX every " + Format.seconds(SETTLE_READ_SECONDS)
                + ") grew by less than " + rule.quietCompileMillis() + " ms over the last " + Format.seconds(rule.windowSeconds())
                + " (the compilers busy " + Format.percent(rule.quietCompileMillis() / (rule.windowSeconds() * 1000))
                + " of one thread's time) and at least " + Format.count(rule.minChecks()) + " checks were answered (past C2's "
                + "thresholds for code run once a check), at most " + Format.seconds(wire.warmupSeconds()) + " (real seconds, not "
                + "time-scaled). A fixed short warm-up measures the JIT still compiling rather than the server: a check-service pod "
                + "under saturation spends its first minutes at several times its settled CPU per check. How long each took is "
                + "itself a figure: it is what a pod that the autoscaler adds during a spike goes through before it serves at its "
                + "settled cost.");
        section.method("The checks are scenario 3's traffic mix spread over " + Format.count(keys)
                + " keys (two entries per check, the plan's bucket and the route's; 10% from a few clients over their limit), "
                + "as JSON over HTTP/1.1 keep-alive and over h2c (prior knowledge), and as Envoy's `ShouldRateLimit` over gRPC "
                + "to check-service's RLS port (two descriptors per check that its rules file maps to the same rules and keys; "
                + "the floor has no gRPC). Every client holds " + wire.connections() + " connections; an HTTP/1.1 connection "
                + "carries one check at a time. **Saturation**: " + wire.connections() + " checks in flight (closed loop) for "
                + Format.seconds(options.seconds(5)) + " after " + Format.seconds(options.seconds(3)) + " of warm-up. **Open loop**: "
                + "check n is due at n ÷ rate and timed from that moment to its answer (HdrHistogram), so a stall or a wait for a "
                + "free connection counts in full; " + Format.seconds(options.seconds(5)) + " measured after "
                + Format.seconds(options.seconds(2)) + " of warm-up at the same rate. The two servers take each step in turn. "
                + "**CPU per check** and **bytes allocated per check** are the server JVM's own: its process CPU time and HotSpot's "
                + "exact count of allocated bytes (`TotalThreadAllocatedBytes`), read over JMX before and after the measured part, "
                + "over the checks answered in it. **Cold start**: from starting the process to its first answer that counts, "
                + "polled every 5 ms (check-service: an enforced verdict from its rules and the store, not a fallback or an unknown rule).");

        Table throughput = new Table("**Saturation**, " + wire.connections() + " checks in flight:",
                List.of("protocol", "server", "checks/s", "vs the floor", "p50", "p99", "CPU per check", "allocated per check", "failed"));
        for (Map.Entry<Protocol, Map<Server, Step>> byProtocol : saturated.entrySet()) {
            Step floorStep = byProtocol.getValue().get(Server.FLOOR);
            for (Map.Entry<Server, Step> e : byProtocol.getValue().entrySet()) {
                Step s = e.getValue();
                throughput.row(byProtocol.getKey().label, e.getKey().label, Format.rate(s.rate()),
                        floorStep == null ? "–" : Format.percent(s.rate() / floorStep.rate()),
                        Format.millis(s.latency().getValueAtPercentile(50)), Format.millis(s.latency().getValueAtPercentile(99)),
                        micros(s.cpuMicrosPerCheck()), bytes(s.bytesPerCheck()), Format.count(s.failed()));
            }
        }
        section.table(throughput);

        Table latency = new Table("**Open loop**, latency from the intended send time:",
                List.of("rate", "protocol", "server", "checks", "p50", "p99", "p99.9", "max", "p99 − floor's", "CPU per check",
                        "allocated per check", "failed", "sent > 10 ms late"));
        for (Map.Entry<Integer, Map<Protocol, Map<Server, Step>>> byRate : open.entrySet()) {
            for (Map.Entry<Protocol, Map<Server, Step>> byProtocol : byRate.getValue().entrySet()) {
                Step floorStep = byProtocol.getValue().get(Server.FLOOR);
                for (Map.Entry<Server, Step> e : byProtocol.getValue().entrySet()) {
                    Step s = e.getValue();
                    Histogram h = s.latency();
                    String overFloor = floorStep == null || e.getKey() == Server.FLOOR ? "–"
                            : signedMillis(h.getValueAtPercentile(99) - floorStep.latency().getValueAtPercentile(99));
                    latency.row(Format.rate(options.rate(byRate.getKey())), byProtocol.getKey().label, e.getKey().label,
                            Format.count(s.checks()), Format.millis(h.getValueAtPercentile(50)), Format.millis(h.getValueAtPercentile(99)),
                            Format.millis(h.getValueAtPercentile(99.9)), Format.millis(h.getMaxValue()), overFloor,
                            micros(s.cpuMicrosPerCheck()), bytes(s.bytesPerCheck()), Format.count(s.failed()), Format.count(s.late()));
                }
            }
        }
        section.table(latency);

        Table start = new Table("**Cold start**, process start to the first answer that counts:",
                List.of("server", "start to first answer", "what counted"));
        start.row(Server.FLOOR.label, Format.seconds(floor.coldStartSeconds()), "any 200 answer");
        start.row(Server.POD.label, Format.seconds(checkService.coldStartSeconds()), "an enforced verdict of the rules file's rules");
        start.row(Server.POD.label + ", ready", Format.seconds(checkService.readySeconds()),
                "readiness UP, after its warm-up (tollgate.warm-up): the load below starts then, as a load balancer's would");
        section.table(start);
        writeColdStarts(section, wire, coldStarts);

        if (!warmUps.isEmpty()) {
            double window = rule.windowSeconds();
            Table jit = new Table("**JIT warm-up**, saturation load until the compilers settle (under " + rule.quietCompileMillis()
                    + " ms of compilation in " + Format.seconds(window) + ", after at least " + Format.count(rule.minChecks())
                    + " checks), at most " + Format.seconds(wire.warmupSeconds()) + ":",
                    List.of("protocol", "server", "settled after", "checks sent", "failed", "compiled meanwhile", "compiled in the last "
                            + Format.seconds(window), "checks/s, first " + Format.seconds(window), "checks/s, last " + Format.seconds(window)));
            for (Map.Entry<Protocol, Map<Server, WarmUp>> byProtocol : warmUps.entrySet()) {
                for (Map.Entry<Server, WarmUp> e : byProtocol.getValue().entrySet()) {
                    WarmUp w = e.getValue();
                    jit.row(byProtocol.getKey().label, e.getKey().label,
                            w.settled() ? Format.seconds(w.seconds()) : "not within " + Format.seconds(wire.warmupSeconds()) + " (the cap)",
                            Format.count(w.checksSent()), Format.count(w.failed()), String.format(Locale.ROOT, "%,d ms", w.compileMillis()),
                            String.format(Locale.ROOT, "%,d ms", w.lastWindowCompileMillis()), Format.rate(w.firstRate()),
                            Format.rate(w.lastRate()));
                }
            }
            section.table(jit);
            Map<String, Charts.Curve> curves = new LinkedHashMap<>();
            warmUps.forEach((protocol, byServer) -> byServer.forEach((server, w) -> {
                double[] x = new double[w.ratePerWindow().length];
                for (int i = 0; i < x.length; i++) {
                    x[i] = (i + 1) * window;
                }
                if (x.length > 0) {
                    curves.put(server.label + ", " + protocol.label, new Charts.Curve(x, w.ratePerWindow()));
                }
            }));
            if (!curves.isEmpty()) {
                section.chart(charts.curves("s8-wire-warm-up", "Checks answered per second while the JIT warms up (saturation, "
                        + wire.connections() + " in flight)", "seconds of warm-up (each point: the " + Format.seconds(window)
                        + " before it)", "checks/s", curves, false));
            }
        }

        if (!byWrk.isEmpty()) {
            section.method("**With wrk** as the load generator (HTTP/1.1 only, right after that protocol's steps): `wrk -t1 -c"
                    + wire.connections() + "`, the issue's own tool, sending " + Format.count(WRK_SAMPLE) + " check bodies drawn "
                    + "from the same mix, one at random per request. It costs a fraction of the bench's JVM client per request, so "
                    + "the servers keep more of the 2 cores. At saturation after " + Format.seconds(options.seconds(3)) + " unmeasured; "
                    + "paced (each connection waits connections ÷ rate between requests, about the rate) after "
                    + Format.seconds(options.seconds(2)) + ". wrk times requests from their send, not from when they were due, so "
                    + "no latency is reported from these runs: only checks/s, CPU and allocation, read as above.");
            Table wrkTable = new Table("**With wrk** (C, one thread, " + wire.connections() + " connections):",
                    List.of("step", "server", "checks/s", "vs the floor", "CPU per check", "allocated per check", "failed"));
            WrkSteps floorSteps = byWrk.get(Server.FLOOR);
            for (Map.Entry<Server, WrkSteps> e : byWrk.entrySet()) {
                WrkSteps w = e.getValue();
                wrkTable.row("saturation", e.getKey().label, Format.rate(w.saturated().rate()),
                        floorSteps == null ? "–" : Format.percent(w.saturated().rate() / floorSteps.saturated().rate()),
                        micros(w.saturated().cpuMicrosPerCheck()), bytes(w.saturated().bytesPerCheck()), Format.count(w.saturated().result().failed()));
            }
            for (Map.Entry<Server, WrkSteps> e : byWrk.entrySet()) {
                WrkSteps w = e.getValue();
                wrkTable.row("paced, " + Format.rate(w.pacedRate()), e.getKey().label, Format.rate(w.paced().rate()), "–",
                        micros(w.paced().cpuMicrosPerCheck()), bytes(w.paced().bytesPerCheck()), Format.count(w.paced().result().failed()));
            }
            section.table(wrkTable);
        }

        List<String> categories = new ArrayList<>();
        Map<String, List<Double>> series = new LinkedHashMap<>();
        for (Map.Entry<Integer, Map<Protocol, Map<Server, Step>>> byRate : open.entrySet()) {
            categories.add(Format.rate(options.rate(byRate.getKey())));
            for (Map.Entry<Protocol, Map<Server, Step>> byProtocol : byRate.getValue().entrySet()) {
                for (Map.Entry<Server, Step> e : byProtocol.getValue().entrySet()) {
                    series.computeIfAbsent(e.getKey().label + ", " + byProtocol.getKey().label, k -> new ArrayList<>())
                            .add(e.getValue().latency().getValueAtPercentile(99) / 1e6);
                }
            }
        }
        section.chart(charts.bars("s8-wire-p99", "p99 of a check over the wire, open loop (from intended send time)", "offered rate",
                "milliseconds (log scale)", categories, series, true, false, null));

        writeRamps(section, charts, options, ramps);
        checks(section, options, saturated, open, checkService, coldStarts);
        WrkSteps podByWrk = byWrk.get(Server.POD);
        if (podByWrk != null && byWrk.containsKey(Server.FLOOR)) {
            double ratio = podByWrk.saturated().rate() / byWrk.get(Server.FLOOR).saturated().rate();
            section.check("Wire, driven by wrk: check-service's checks/s ≥ 50% of the floor's (HTTP/1.1 keep-alive, "
                    + wire.connections() + " connections)", Format.percent(ratio), ratio >= 0.5);
            double cpu = podByWrk.paced().cpuMicrosPerCheck();
            section.check("Wire, driven by wrk: check-service's CPU per check ≤ 50 µs at " + Format.rate(podByWrk.pacedRate()) + " (HTTP/1.1)",
                    micros(cpu), cpu <= 50);
        }
        return section;
    }

    private static void writeColdStarts(Section section, BenchOptions.Wire wire, ColdStarts.Result coldStarts) {
        if (!coldStarts.starts().isEmpty()) {
            section.method("**Cold start by launch**: after the steps, with both servers stopped, check-service is started again and "
                    + "again, each launch in turn for " + wire.coldStartRounds() + " round(s): the jar as `java -jar` runs it; with "
                    + "`-Dspring.aot.enabled=true`, as the Helm chart starts a pod, from the jar and from Boot's "
                    + "extracted layout (a class path of plain jars, as a Jib image has), neither with a trained archive; the "
                    + "layouts `check-service/fast-start.sh` trains for the bench's JDK (" + Runtime.version().feature() + ") and these JVM "
                    + "flags (a class-data archive, and with `AOT=on` Spring AOT's bean definitions as well; training is not timed); and "
                    + "the Dockerfile's image, its steps on the bench's JDK (the jar extracted as `app.jar`, trained in place with "
                    + "Spring AOT; on Java 25 an AOT cache, as the image's). "
                    + "Each start is in the Helm chart's shape, the one Spring AOT is built for: a management port of its own, the gRPC "
                    + "port, no JMX agent, rules from a rules-service that never answers and the pod's saved snapshot of the mix's "
                    + "rules. A start ends at the first enforced verdict, polled every 5 ms; its CPU is the process's by then.");
            Table byLaunch = new Table("**Cold start by launch**, to the first enforced verdict (" + wire.coldStartRounds()
                    + " interleaved round(s)):", List.of("launch", "median", "each start", "CPU at the answer, median", "vs the fat jar"));
            double fatJar = coldStarts.medianSeconds(ColdStarts.Launch.FAT_JAR);
            coldStarts.starts().forEach((launch, each) -> byLaunch.row(launch.label, Format.seconds(coldStarts.medianSeconds(launch)),
                    String.join(", ", each.stream().map(one -> String.format(Locale.ROOT, "%.2f s", one.seconds())).toList()),
                    Format.seconds(coldStarts.medianCpuSeconds(launch)), Format.percent(coldStarts.medianSeconds(launch) / fatJar)));
            coldStarts.skipped().forEach((launch, why) -> byLaunch.row(launch.label, "–", "not measured: " + why, "–", "–"));
            section.table(byLaunch);
        }
    }

    /**
     * The cold ramps (issue 29): a table of medians per launch and warm-up setting, a chart of checks/s second by second
     * from ready, and the targets for the README's `java -jar` and the chart's launch.
     */
    private static void writeRamps(Section section, Charts charts, BenchOptions options, ColdRamp.Result ramps) {
        if (ramps == null) {
            return;
        }
        BenchOptions.Ramp ramp = options.wire().ramp();
        JitSettle rule = JitSettle.DEFAULT;
        String first = Format.seconds(RAMP_FIRST_SECONDS);
        String window = Format.seconds(rule.windowSeconds());
        section.method("**Cold ramp** (issue 29): what a pod the autoscaler adds serves from the moment it is ready. check-service is "
                + "started cold " + ramp.rounds() + " time(s) in each launch (" + String.join("; ", ramp.launches().stream()
                .map(launch -> launch.label).toList()) + "), with its warm-up before readiness (`tollgate.warm-up.enabled`, chart "
                + "`checkService.settings.warmUp.enabled`) " + String.join(" and ", ramp.warmUp().stream().map(on -> on ? "on" : "off")
                .toList()) + ", the launches and settings taking turns round by round; each start in the chart's shape, as the "
                + "cold starts by launch, with the store's command timeout at " + options.commandTimeout().toMillis() + " ms"
                + (options.timeScale() < 1 ? " and, this run being time-scaled, the warm-up's longest run scaled from "
                + Format.seconds(WARM_UP_MAX_SECONDS) + " to " + Format.seconds(Math.max(1, WARM_UP_MAX_SECONDS * options.timeScale()))
                : " and the warm-up's other settings the pod's defaults (the chart's values)") + ". **First enforced answer**: from "
                + "the start to the first enforced verdict, polled every 5 ms. **Ready**: to `/actuator/health/readiness` UP on "
                + "the management port, polled every 5 ms after that. From ready, the JIT warm-up step's load (the same mix and "
                + "HTTP/1.1 client, closed loop, " + options.wire().connections() + " in flight) until the pod's JIT settles by the "
                + "same rule (under " + rule.quietCompileMillis() + " ms of compilation in " + window + ", after at least "
                + Format.count(rule.minChecks()) + " checks; its compilation time read every second from its own "
                + "`/actuator/prometheus`, `jvm_compilation_time_ms_total`, as the chart's pod monitor scrapes it: no JMX agent) "
                + "or " + Format.seconds(ramp.capSeconds()) + " (real seconds, not time-scaled). Counted: enforced verdicts "
                + "(allowed or denied, not fallback) in each second from ready, by when each check was sent; a check that failed "
                + "or was answered in fallback (a store command past its timeout) counts only in its column, summed over the rounds. **Settled checks/s**: the rate over the ramp's last "
                + window + " (the window in which the JIT was found settled; at the cap, the last " + window + " anyway, marked). "
                + "**First " + first + "**: checks/s over the first " + first + " after ready (all of a ramp shorter than that). "
                + "Every figure is the median over the rounds, each of its own; the chart is the median across the rounds of each "
                + "second from ready (over the rounds that lasted that long).");
        Table table = new Table("**Cold ramp**, from ready until the JIT settles (" + ramp.rounds() + " interleaved round(s), medians):",
                List.of("launch", "warm-up", "first enforced answer", "ready", "checks/s, first " + first + " after ready",
                        "settled checks/s", "first " + first + " ÷ settled", "settled after (from ready)", "failed or in fallback", "≥ 80%"));
        Map<String, Charts.Curve> curves = new LinkedHashMap<>();
        ramps.ramps().forEach((variant, each) -> {
            double ratio = ramps.median(variant, ColdRamp.Ramp::ratio);
            long settledRounds = each.stream().filter(ColdRamp.Ramp::settled).count();
            double settledAfter = Stats.median(each.stream().filter(ColdRamp.Ramp::settled).mapToDouble(ColdRamp.Ramp::seconds).toArray());
            table.row(variant.launch().label, variant.warmUp() ? "on" : "off", Format.seconds(ramps.median(variant, ColdRamp.Ramp::firstAnswerSeconds)),
                    Format.seconds(ramps.median(variant, ColdRamp.Ramp::readySeconds)), Format.rate(ramps.median(variant, ColdRamp.Ramp::firstRate)),
                    Format.rate(ramps.median(variant, ColdRamp.Ramp::settledRate)), Format.percent(ratio),
                    settledRounds == 0 ? "not within " + Format.seconds(ramp.capSeconds()) + " (the cap)"
                            : Format.seconds(settledAfter) + (settledRounds < each.size() ? " (" + settledRounds + " of " + each.size()
                            + " settled)" : ""),
                    Format.count(each.stream().mapToLong(ColdRamp.Ramp::failed).sum()), ratio >= RAMP_TARGET ? "yes" : "**no**");
            double[] perSecond = ramps.medianPerSecond(variant);
            double[] x = new double[perSecond.length];
            for (int i = 0; i < x.length; i++) {
                x[i] = i + 1;
            }
            if (x.length > 0) {
                curves.put(variant.shortLabel(), new Charts.Curve(x, perSecond));
            }
        });
        ramps.skipped().forEach((launch, why) -> table.row(launch.label, "–", "not measured: " + why, "–", "–", "–", "–", "–", "–", "–"));
        section.table(table);
        if (!curves.isEmpty()) {
            section.chart(charts.curves("s8-wire-cold-ramp", "Checks answered per second from ready, cold start by launch (saturation, "
                    + options.wire().connections() + " in flight; median of " + ramp.rounds() + " round(s))",
                    "seconds from ready (each point: the second before it)", "checks/s", curves, false));
        }
        for (ColdRamp.Variant variant : ramps.ramps().keySet()) {
            String setting = "warm-up " + (variant.warmUp() ? "on" : "off") + ", median of " + ramps.ramps().get(variant).size();
            String launch = switch (variant.launch()) {
                case FAT_JAR -> "the README's `java -jar`";
                case EXTRACTED_AOT -> "the chart's launch of the Jib image (extracted, Spring AOT)";
                case IMAGE -> "the chart's launch of the Dockerfile's image (Spring AOT, the trained archive)";
                default -> null;
            };
            if (launch != null) {
                double ratio = ramps.median(variant, ColdRamp.Ramp::ratio);
                section.check("Wire, cold ramp: checks/s in the first " + first + " after ready ≥ 80% of settled (" + launch + ", " + setting + ")",
                        Format.percent(ratio), ratio >= RAMP_TARGET);
            }
            if (launch != null && variant.launch() != ColdStarts.Launch.FAT_JAR) {
                double firstAnswer = ramps.median(variant, ColdRamp.Ramp::firstAnswerSeconds);
                section.check("Wire, cold ramp: start to first enforced answer ≤ 3 s (" + launch + ", " + setting + ")",
                        Format.seconds(firstAnswer), firstAnswer <= 3);
            }
        }
    }

    /** The targets, on HTTP/1.1 keep-alive, which is how gateways call the pod. */
    private static void checks(Section section, BenchOptions options, Map<Protocol, Map<Server, Step>> saturated,
                               Map<Integer, Map<Protocol, Map<Server, Step>>> open, ServerUnderTest pod, ColdStarts.Result coldStarts) {
        Map<Server, Step> http = saturated.get(Protocol.HTTP1);
        if (http != null) {
            double ratio = http.get(Server.POD).rate() / http.get(Server.FLOOR).rate();
            section.check("Wire: check-service's checks/s ≥ 50% of the floor's (HTTP/1.1 keep-alive, " + options.wire().connections()
                    + " connections)", Format.percent(ratio), ratio >= 0.5);
        }
        int nearest = options.wire().rates().stream().min(Comparator.comparingInt(rate -> Math.abs(rate - 5000))).orElseThrow();
        Map<Server, Step> atRate = open.getOrDefault(nearest, Map.of()).get(Protocol.HTTP1);
        String rate = Format.rate(options.rate(nearest));
        if (atRate != null) {
            double over = atRate.get(Server.POD).latency().getValueAtPercentile(99) - atRate.get(Server.FLOOR).latency().getValueAtPercentile(99);
            section.check("Wire: check-service's p99 − the floor's ≤ 1 ms at " + rate + " open loop (HTTP/1.1)", signedMillis(over),
                    over <= 1_000_000);
            double cpu = atRate.get(Server.POD).cpuMicrosPerCheck();
            section.check("Wire: check-service's CPU per check ≤ 50 µs at " + rate + " (HTTP/1.1)", micros(cpu), cpu <= 50);
        }
        double fastStart = coldStarts.medianSeconds(ColdStarts.Launch.CLASS_CACHE);
        if (Double.isNaN(fastStart) && pod != null) {
            section.check("Wire: check-service's start to first enforced answer ≤ 3 s (fat jar)", Format.seconds(pod.coldStartSeconds()),
                    pod.coldStartSeconds() <= 3);
        } else if (!Double.isNaN(fastStart)) {
            // the fast start the project ships for Java 17, as docs/performance.md says to start a pod; the other launches are in the table
            section.check("Wire: check-service's start to first enforced answer ≤ 3 s (`fast-start.sh`, median of "
                    + coldStarts.starts().get(ColdStarts.Launch.CLASS_CACHE).size() + ")", Format.seconds(fastStart), fastStart <= 3);
        }
    }

    static String micros(double value) {
        return Double.isNaN(value) ? "–" : String.format(Locale.ROOT, value < 10 ? "%.1f µs" : "%,.0f µs", value);
    }

    static String bytes(double value) {
        if (Double.isNaN(value)) {
            return "–";
        }
        return value < 10_000 ? String.format(Locale.ROOT, "%,.0f B", value) : String.format(Locale.ROOT, "%,.1f KiB", value / 1024);
    }

    static String signedMillis(double nanos) {
        return (nanos >= 0 ? "+" : "−") + Format.millis(Math.abs(nanos));
    }

    private static void deleteQuietly(Path directory) {
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // a temporary folder; the next run makes its own
        }
    }
}
