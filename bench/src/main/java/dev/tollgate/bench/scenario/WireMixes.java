package dev.tollgate.bench.scenario;

import dev.tollgate.bench.Bench;
import dev.tollgate.bench.BenchOptions;
import dev.tollgate.bench.BenchOptions.Protocol;
import dev.tollgate.bench.load.ClosedLoop;
import dev.tollgate.bench.load.OpenLoop;
import dev.tollgate.bench.load.Timeline;
import dev.tollgate.bench.load.Timeline.Series;
import dev.tollgate.bench.report.Format;
import dev.tollgate.bench.report.Section;
import dev.tollgate.bench.report.Table;
import dev.tollgate.bench.scenario.WireScenario.Server;
import dev.tollgate.bench.scenario.WireScenario.Step;
import dev.tollgate.bench.scenario.WireScenario.WrkStep;
import dev.tollgate.bench.scenario.WireScenario.WrkSteps;
import dev.tollgate.bench.wire.GrpcWireClient;
import dev.tollgate.bench.wire.JvmCounters;
import dev.tollgate.bench.wire.PeerRls;
import dev.tollgate.bench.wire.ServerUnderTest;
import dev.tollgate.bench.wire.WireCheck;
import dev.tollgate.bench.wire.WireClient;
import dev.tollgate.bench.wire.WireMixOptions;
import dev.tollgate.bench.wire.WireMixOptions.Kind;
import dev.tollgate.bench.wire.WrkLoad;
import dev.tollgate.common.rule.Limit;
import dev.tollgate.common.rule.Rule;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * Issue 29's parts of scenario 8, beside the design's mix's own steps: (a) the store-bound mix ({@link StoreBoundMix}) against
 * the floor over HTTP/1.1, at saturation (the bench's client, and wrk when it is on the PATH) and open loop at the scenario's
 * rates, with each server's CPU, allocation and, for check-service, its own count of store calls per check; the design's mix's
 * HTTP/1.1 steps are read into the same tables, so the two mixes sit side by side. (c) With {@code --peer-rls}, the gRPC
 * steps' {@code ShouldRateLimit} calls of each chosen mix sent to an Envoy RLS server the bench did not start
 * (envoyproxy/ratelimit) and to check-service in turn, with the peer's CPU from {@code /proc} when its pid is given.
 */
final class WireMixes {

    private static final int MAX_IN_FLIGHT = 100_000;
    private static final double DRAIN_SECONDS = 5;

    /** One measured step against one target; NaN figures are those the target does not tell. */
    record MixStep(long allowed, long denied, long fallback, long failed, double seconds, Histogram latency, JvmCounters.Reading used,
                   boolean cpuRead, boolean allocationRead) {

        long checks() {
            return allowed + denied;
        }

        double rate() {
            return checks() / seconds;
        }

        double cpuMicrosPerCheck() {
            return cpuRead ? used.cpuMicrosPer(checks()) : Double.NaN;
        }

        double bytesPerCheck() {
            return allocationRead ? used.bytesPer(checks()) : Double.NaN;
        }

        double storeCallsPerCheck() {
            return used.storeCallsPer(checks());
        }

        double deniedShare() {
            return checks() == 0 ? Double.NaN : (double) denied / checks();
        }

        double fallbackShare() {
            return checks() == 0 ? Double.NaN : (double) fallback / checks();
        }
    }

    /** What a step is run against: a server of the scenario, or the RLS peer. */
    private interface Target {
        String label();

        WireClient connect(Protocol protocol, int connections);

        JvmCounters.Reading read();

        boolean cpuRead();

        boolean allocationRead();
    }

    private final Bench bench;
    private final WireMixOptions choice;
    private final Map<Kind, Supplier<WireCheck>> draws = new EnumMap<>(Kind.class);
    private final StoreBoundMix storeBound;
    private final WrkLoad storeBoundWrk;
    /** The store-bound mix's steps over HTTP/1.1, by server. */
    private final Map<Server, MixStep> saturated = new EnumMap<>(Server.class);
    private final Map<Integer, Map<Server, MixStep>> open = new LinkedHashMap<>();
    private final Map<Server, WrkStep> byWrk = new EnumMap<>(Server.class);
    /** The RLS comparison: by mix, by step ("saturation" or a rate), by target. */
    private final Map<Kind, Map<String, Map<String, MixStep>>> overRls = new EnumMap<>(Kind.class);
    /** The pod's CPU per scrape of its store-call counter, microseconds; NaN until measured. */
    private double scrapeMicros = Double.NaN;

    private WireMixes(Bench bench, StoreBoundMix storeBound, WrkLoad storeBoundWrk, Supplier<WireCheck> design) {
        this.bench = bench;
        this.choice = bench.options().wireMixes();
        this.storeBound = storeBound;
        this.storeBoundWrk = storeBoundWrk;
        draws.put(Kind.DESIGN, design);
        if (storeBound != null) {
            draws.put(Kind.STORE_BOUND, storeBound::next);
        }
    }

    /**
     * @param design a check of the design's mix, drawn as scenario 8 draws it
     * @param work   scenario 8's work directory: wrk's script of the store-bound bodies goes in a folder of its own there
     */
    static WireMixes of(Bench bench, Path work, Supplier<WireCheck> design) {
        WireMixOptions choice = bench.options().wireMixes();
        StoreBoundMix storeBound = choice.runs(Kind.STORE_BOUND) ? StoreBoundMix.of(bench, choice.storeBoundKeys()) : null;
        WrkLoad wrk = null;
        if (storeBound != null) {
            Path own = work.resolve("store-bound");
            try {
                Files.createDirectories(own);
            } catch (IOException e) {
                throw new UncheckedIOException("could not prepare the store-bound mix's folder", e);
            }
            wrk = WrkLoad.find().map(path -> WrkLoad.of(path, own, storeBound.bodies())).orElse(null);
        }
        return new WireMixes(bench, storeBound, wrk, design);
    }

    /** Right after the design's mix's steps over {@code protocol}, while that protocol's code is what the JIT compiled. */
    void afterDesignSteps(Protocol protocol, ServerUnderTest floor, ServerUnderTest pod) {
        if (protocol == Protocol.HTTP1 && storeBound != null) {
            storeBoundOverHttp(floor, pod);
        }
        if (protocol == Protocol.GRPC && choice.peer().isPresent()) {
            overRls(pod, choice.peer().get());
        }
    }

    private void storeBoundOverHttp(ServerUnderTest floorServer, ServerUnderTest podServer) {
        BenchOptions options = bench.options();
        Map<Server, Target> targets = new EnumMap<>(Server.class);
        targets.put(Server.FLOOR, of(Server.FLOOR.label, floorServer, false));
        targets.put(Server.POD, of(Server.POD.label, podServer, true));
        Supplier<WireCheck> next = draws.get(Kind.STORE_BOUND);
        targets.forEach((server, target) -> {
            // its first step's warm-up, longer than a step's own: the pod now calls the store on every check
            System.out.printf("  scenario 8: store-bound mix, %s at saturation%n", server.label);
            saturated.put(server, saturate(target, Protocol.HTTP1, next, options.seconds(10)));
        });
        for (int nominal : options.wire().rates()) {
            targets.forEach((server, target) -> {
                System.out.printf("  scenario 8: store-bound mix, %s at %s%n", server.label, Format.rate(options.rate(nominal)));
                open.computeIfAbsent(nominal, r -> new EnumMap<>(Server.class))
                        .put(server, openLoop(target, Protocol.HTTP1, options.rate(nominal), next));
            });
        }
        scrapeMicros = podServer.scrapeCpuMicros();
        if (storeBoundWrk != null) {
            Map<Server, ServerUnderTest> servers = Map.of(Server.FLOOR, floorServer, Server.POD, podServer);
            for (Server server : List.of(Server.FLOOR, Server.POD)) {
                System.out.printf("  scenario 8: store-bound mix, %s driven by wrk%n", server.label);
                byWrk.put(server, wrkSaturation(servers.get(server)));
            }
        }
    }

    private void overRls(ServerUnderTest podServer, PeerRls peer) {
        BenchOptions options = bench.options();
        Target pod = of(Server.POD.label, podServer, true);
        Target rls = peer(peer);
        for (Kind kind : choice.mixes()) {
            Supplier<WireCheck> next = draws.get(kind);
            Map<String, Map<String, MixStep>> steps = overRls.computeIfAbsent(kind, k -> new LinkedHashMap<>());
            for (Target target : List.of(pod, rls)) {
                System.out.printf("  scenario 8: over RLS, %s, %s at saturation%n", kind.label, target.label());
                steps.computeIfAbsent("saturation", s -> new LinkedHashMap<>())
                        .put(target.label(), saturate(target, Protocol.GRPC, next, options.seconds(3)));
            }
            for (int nominal : options.wire().rates()) {
                String rate = Format.rate(options.rate(nominal));
                for (Target target : List.of(pod, rls)) {
                    System.out.printf("  scenario 8: over RLS, %s, %s at %s%n", kind.label, target.label(), rate);
                    steps.computeIfAbsent(rate, s -> new LinkedHashMap<>())
                            .put(target.label(), openLoop(target, Protocol.GRPC, options.rate(nominal), next));
                }
            }
        }
    }

    private MixStep saturate(Target target, Protocol protocol, Supplier<WireCheck> next, double warm) {
        BenchOptions options = bench.options();
        int connections = options.wire().connections();
        double measure = options.seconds(5);
        try (WireClient client = target.connect(protocol, connections)) {
            new ClosedLoop(bench.newRun(warm, null), connections).run(warm, warm, drain(), null, () -> client.send(next.get()));
            JvmCounters.Reading before = target.read();
            Timeline timeline = bench.newRun(measure, null);
            Histogram latency = OpenLoop.newHistogram();
            int unanswered = new ClosedLoop(timeline, connections).run(measure, 0, drain(), latency, () -> client.send(next.get()));
            JvmCounters.Reading used = target.read().minus(before);
            bench.pause();
            return step(target, timeline, measure, unanswered, latency, used);
        }
    }

    private MixStep openLoop(Target target, Protocol protocol, double rate, Supplier<WireCheck> next) {
        BenchOptions options = bench.options();
        double warm = options.seconds(2);
        double measure = options.seconds(5);
        try (WireClient client = target.connect(protocol, options.wire().connections())) {
            OpenLoop.Sender sender = sequence -> client.send(next.get());
            OpenLoop warmUp = new OpenLoop(bench.newRun(warm, null), rate, MAX_IN_FLIGHT, sender);
            warmUp.runUntil(warm);
            warmUp.drain(drain());
            JvmCounters.Reading before = target.read();
            Timeline timeline = bench.newRun(measure, null);
            OpenLoop load = new OpenLoop(timeline, rate, MAX_IN_FLIGHT, sender);
            Histogram latency = OpenLoop.newHistogram();
            load.recordLatency(latency, 0);
            load.runUntil(measure);
            int unanswered = load.drain(drain());
            JvmCounters.Reading used = target.read().minus(before);
            for (int i = 0; i < unanswered; i++) {
                latency.recordValue((long) (drain() * 1e9));
            }
            bench.pause();
            return step(target, timeline, measure, unanswered, latency, used);
        }
    }

    private WrkStep wrkSaturation(ServerUnderTest server) {
        WrkStep step = WireScenario.wrkSaturation(bench, server, storeBoundWrk);
        bench.pause();
        return step;
    }

    private double drain() {
        return Math.max(1, bench.options().seconds(DRAIN_SECONDS));
    }

    private static MixStep step(Target target, Timeline timeline, double measure, int unanswered, Histogram latency, JvmCounters.Reading used) {
        long failed = timeline.sum(Series.FAILED, 0, measure) + timeline.sum(Series.SHED, 0, measure) + unanswered;
        return new MixStep(timeline.sum(Series.ALLOWED, 0, measure), timeline.sum(Series.DENIED, 0, measure),
                timeline.sum(Series.FALLBACK, 0, measure), failed, measure, latency, used,
                target.cpuRead(), target.allocationRead());
    }

    private static Target of(String label, ServerUnderTest server, boolean pod) {
        return new Target() {
            @Override
            public String label() {
                return label;
            }

            @Override
            public WireClient connect(Protocol protocol, int connections) {
                return WireClient.connect(protocol, "127.0.0.1", protocol == Protocol.GRPC ? server.grpcPort() : server.httpPort(), connections);
            }

            @Override
            public JvmCounters.Reading read() {
                return server.read();
            }

            @Override
            public boolean cpuRead() {
                return true;
            }

            @Override
            public boolean allocationRead() {
                return true;
            }
        };
    }

    private static Target peer(PeerRls peer) {
        return new Target() {
            @Override
            public String label() {
                return "RLS peer (" + peer.address() + ")";
            }

            @Override
            public WireClient connect(Protocol protocol, int connections) {
                return new GrpcWireClient(peer.host(), peer.port(), connections, Duration.ofSeconds(30));
            }

            @Override
            public JvmCounters.Reading read() {
                OptionalLong cpu = peer.cpuNanos();
                return new JvmCounters.Reading(cpu.orElse(0), 0);
            }

            @Override
            public boolean cpuRead() {
                return peer.pid().isPresent();
            }

            @Override
            public boolean allocationRead() {
                return false;
            }
        };
    }

    /**
     * The tables of both parts, after the design's mix's own.
     *
     * @param designSaturated the design's mix at saturation, by protocol and server
     * @param designOpen      the design's mix open loop, by rate, protocol and server
     * @param designWrk       the design's mix driven by wrk, by server
     */
    void write(Section section, Map<Protocol, Map<Server, Step>> designSaturated, Map<Integer, Map<Protocol, Map<Server, Step>>> designOpen,
               Map<Server, WrkSteps> designWrk) {
        writeMixes(section, designSaturated, designOpen, designWrk);
        writeOverRls(section);
    }

    private void writeMixes(Section section, Map<Protocol, Map<Server, Step>> designSaturated,
                            Map<Integer, Map<Protocol, Map<Server, Step>>> designOpen, Map<Server, WrkSteps> designWrk) {
        BenchOptions options = bench.options();
        int connections = options.wire().connections();
        boolean design = choice.runs(Kind.DESIGN);
        Map<Server, Step> designHttp = design ? designSaturated.getOrDefault(Protocol.HTTP1, Map.of()) : Map.of();
        if (storeBound == null && designHttp.isEmpty()) {
            return;
        }
        section.method("**Two mixes against the floor** (issue 29), over HTTP/1.1 keep-alive. **The design's mix** is the steps above. "
                + (storeBound == null ? "The store-bound mix was not chosen (`--wire-mixes`). "
                : "**The store-bound mix**: every check an Enterprise account's plan bucket (" + rate(StoreBoundMix.PLAN) + ") and the "
                + "route bucket `" + StoreBoundMix.ROUTE.id() + "` (" + rate(StoreBoundMix.ROUTE) + ") on the same key, over "
                + Format.count(storeBound.keys()) + " keys drawn uniformly (`--wire-store-keys`): a lease is at most ⌊whole ÷ "
                + "(2 × askers × cost)⌋ of each bucket of a set, so a route bucket of 3 leases one request, the exact check, and each "
                + "key stays far under 5/s, so its checks are admitted and never answered from the deny cache: every check is a "
                + "store call. It runs right after the design's mix's HTTP/1.1 steps, against the same two servers: at saturation "
                + "(" + connections + " in flight, closed loop, " + Format.seconds(options.seconds(5)) + " after "
                + Format.seconds(options.seconds(10)) + " of warm-up), open loop at the same rates, and with wrk (every key's body, "
                + "one at random per request) when it is on the PATH. The floor answers both mixes alike. ")
                + "**Store calls per check** are check-service's own: `tollgate_store_calls_seconds_count` summed over scripts and "
                + "outcomes, from its `/actuator/prometheus` (the one series, `includedNames`), read before and after each measured "
                + "step with its CPU and allocation, over the checks answered in it. Each scrape is timed by a JMX reading before "
                + "and after it and its cost taken out of the step's CPU and allocation, so the design's tables above mean what "
                + "they meant without it"
                + (Double.isNaN(scrapeMicros) ? ". "
                : String.format(Locale.ROOT, " (%,.0f µs of the pod's CPU per scrape in this run, JIT and collector threads "
                + "included). ", scrapeMicros))
                + "\"CPU vs the floor's\" is check-service's CPU per check over the floor's in the same step. A check of the "
                + "store-bound mix answered without a store call is one the pod answered from its fallback bucket (\"fallback\": "
                + "a store call that timed out after " + options.commandTimeout().toMillis() + " ms, or a shard's breaker open, "
                + "which then skips the call): on a machine whose cores are taken, that, not a lease, is what brings store calls "
                + "per check under 1. wrk reads no answer's body, so its fallback share is not read.");

        Table sat = new Table("**Two mixes at saturation**, HTTP/1.1, " + connections + " in flight:",
                List.of("mix", "load", "server", "checks/s", "vs the floor", "p99", "CPU per check", "CPU vs the floor's",
                        "allocated per check", "store calls per check", "denied", "fallback", "failed"));
        if (!designHttp.isEmpty()) {
            rowsOfDesign(sat, "bench client", designHttp);
        }
        if (storeBound != null) {
            rowsOfMix(sat, Kind.STORE_BOUND.label, "bench client", saturated);
        }
        if (design && !designWrk.isEmpty()) {
            Map<Server, WrkStep> wrk = new EnumMap<>(Server.class);
            designWrk.forEach((server, steps) -> wrk.put(server, steps.saturated()));
            rowsOfWrk(sat, Kind.DESIGN.label, wrk);
        }
        if (!byWrk.isEmpty()) {
            rowsOfWrk(sat, Kind.STORE_BOUND.label, byWrk);
        }
        section.table(sat);

        Table latency = new Table("**Two mixes open loop**, HTTP/1.1, latency from the intended send time:",
                List.of("mix", "rate", "server", "checks", "p50", "p99", "p99 − floor's", "CPU per check", "CPU vs the floor's",
                        "allocated per check", "store calls per check", "denied", "fallback", "failed"));
        for (int nominal : options.wire().rates()) {
            Map<Server, Step> d = design ? designOpen.getOrDefault(nominal, Map.of()).getOrDefault(Protocol.HTTP1, Map.of()) : Map.of();
            Step floor = d.get(Server.FLOOR);
            d.forEach((server, s) -> latency.row(Kind.DESIGN.label, Format.rate(options.rate(nominal)), server.label, Format.count(s.checks()),
                    Format.millis(s.latency().getValueAtPercentile(50)), Format.millis(s.latency().getValueAtPercentile(99)),
                    overFloor(server, s.latency(), floor == null ? null : floor.latency()), WireScenario.micros(s.cpuMicrosPerCheck()),
                    vsFloor(server, s.cpuMicrosPerCheck(), floor == null ? Double.NaN : floor.cpuMicrosPerCheck()),
                    WireScenario.bytes(s.bytesPerCheck()), perCheck(s.used().storeCallsPer(s.checks())), "–",
                    fallback(server, s.fallback(), s.checks()), Format.count(s.failed())));
            Map<Server, MixStep> m = open.getOrDefault(nominal, Map.of());
            MixStep floorStep = m.get(Server.FLOOR);
            m.forEach((server, s) -> latency.row(Kind.STORE_BOUND.label, Format.rate(options.rate(nominal)), server.label,
                    Format.count(s.checks()), Format.millis(s.latency().getValueAtPercentile(50)),
                    Format.millis(s.latency().getValueAtPercentile(99)), overFloor(server, s.latency(), floorStep == null ? null : floorStep.latency()),
                    WireScenario.micros(s.cpuMicrosPerCheck()),
                    vsFloor(server, s.cpuMicrosPerCheck(), floorStep == null ? Double.NaN : floorStep.cpuMicrosPerCheck()),
                    WireScenario.bytes(s.bytesPerCheck()), perCheck(s.storeCallsPerCheck()), denied(server, s),
                    fallback(server, s.fallback(), s.checks()), Format.count(s.failed())));
        }
        section.table(latency);
        targets(section, designHttp, design ? designWrk : Map.of());
    }

    private static void rowsOfDesign(Table table, String load, Map<Server, Step> steps) {
        Step floor = steps.get(Server.FLOOR);
        steps.forEach((server, s) -> table.row(Kind.DESIGN.label, load, server.label, Format.rate(s.rate()),
                floor == null ? "–" : Format.percent(s.rate() / floor.rate()), Format.millis(s.latency().getValueAtPercentile(99)),
                WireScenario.micros(s.cpuMicrosPerCheck()), vsFloor(server, s.cpuMicrosPerCheck(), floor == null ? Double.NaN : floor.cpuMicrosPerCheck()),
                WireScenario.bytes(s.bytesPerCheck()), perCheck(s.used().storeCallsPer(s.checks())), "–",
                fallback(server, s.fallback(), s.checks()), Format.count(s.failed())));
    }

    private static void rowsOfMix(Table table, String mix, String load, Map<Server, MixStep> steps) {
        MixStep floor = steps.get(Server.FLOOR);
        steps.forEach((server, s) -> table.row(mix, load, server.label, Format.rate(s.rate()),
                floor == null ? "–" : Format.percent(s.rate() / floor.rate()), Format.millis(s.latency().getValueAtPercentile(99)),
                WireScenario.micros(s.cpuMicrosPerCheck()), vsFloor(server, s.cpuMicrosPerCheck(), floor == null ? Double.NaN : floor.cpuMicrosPerCheck()),
                WireScenario.bytes(s.bytesPerCheck()), perCheck(s.storeCallsPerCheck()), denied(server, s),
                fallback(server, s.fallback(), s.checks()), Format.count(s.failed())));
    }

    private static void rowsOfWrk(Table table, String mix, Map<Server, WrkStep> steps) {
        WrkStep floor = steps.get(Server.FLOOR);
        steps.forEach((server, s) -> table.row(mix, "wrk", server.label, Format.rate(s.rate()),
                floor == null ? "–" : Format.percent(s.rate() / floor.rate()), "–", WireScenario.micros(s.cpuMicrosPerCheck()),
                vsFloor(server, s.cpuMicrosPerCheck(), floor == null ? Double.NaN : floor.cpuMicrosPerCheck()),
                WireScenario.bytes(s.bytesPerCheck()), perCheck(s.used().storeCallsPer(s.result().answered())), "–",
                "not read", Format.count(s.result().failed())));
    }

    /** Issue 29's targets over HTTP/1.1 at saturation, with each load generator that ran. */
    private void targets(Section section, Map<Server, Step> designHttp, Map<Server, WrkSteps> designWrk) {
        if (designHttp.containsKey(Server.POD) && designHttp.containsKey(Server.FLOOR)) {
            cpuTarget(section, Kind.DESIGN, "bench client", designHttp.get(Server.POD).cpuMicrosPerCheck() / designHttp.get(Server.FLOOR).cpuMicrosPerCheck());
        }
        if (designWrk.containsKey(Server.POD) && designWrk.containsKey(Server.FLOOR)) {
            cpuTarget(section, Kind.DESIGN, "wrk",
                    designWrk.get(Server.POD).saturated().cpuMicrosPerCheck() / designWrk.get(Server.FLOOR).saturated().cpuMicrosPerCheck());
        }
        if (saturated.containsKey(Server.POD) && saturated.containsKey(Server.FLOOR)) {
            MixStep pod = saturated.get(Server.POD);
            MixStep floor = saturated.get(Server.FLOOR);
            cpuTarget(section, Kind.STORE_BOUND, "bench client", pod.cpuMicrosPerCheck() / floor.cpuMicrosPerCheck());
            rateTarget(section, "bench client", pod.rate() / floor.rate());
        }
        if (byWrk.containsKey(Server.POD) && byWrk.containsKey(Server.FLOOR)) {
            WrkStep pod = byWrk.get(Server.POD);
            WrkStep floor = byWrk.get(Server.FLOOR);
            cpuTarget(section, Kind.STORE_BOUND, "wrk", pod.cpuMicrosPerCheck() / floor.cpuMicrosPerCheck());
            rateTarget(section, "wrk", pod.rate() / floor.rate());
        }
    }

    private static void cpuTarget(Section section, Kind kind, String load, double ratio) {
        double bound = kind == Kind.DESIGN ? 1.5 : 3;
        section.check("Wire, " + kind.label + ": check-service's CPU per check ≤ " + (kind == Kind.DESIGN ? "1.5" : "3") + "× the floor's at "
                + "saturation (" + load + ", HTTP/1.1)", Format.ratio(ratio), ratio <= bound);
    }

    private static void rateTarget(Section section, String load, double ratio) {
        section.check("Wire, store-bound mix: check-service's checks/s ≥ 60% of the floor's at saturation (" + load + ", HTTP/1.1)",
                Format.percent(ratio), ratio >= 0.6);
    }

    private void writeOverRls(Section section) {
        BenchOptions options = bench.options();
        if (!options.wire().protocols().contains(Protocol.GRPC)) {
            return;
        }
        if (overRls.isEmpty()) {
            section.method("No RLS peer in this run (`--peer-rls`), so no comparison with envoyproxy/ratelimit. " + peerMethod());
            return;
        }
        section.method(peerMethod());
        PeerRls peer = choice.peer().orElseThrow();
        Table table = new Table("**Over RLS**, gRPC `ShouldRateLimit`, the same calls to check-service and to the peer at "
                + peer.address() + (peer.pid().isPresent() ? " (pid " + peer.pid().getAsLong() + ")" : " (no pid given: its CPU was not measured)") + ":",
                List.of("mix", "step", "server", "calls/s", "p50", "p99", "CPU per call", "pod's CPU per call ÷ peer's", "store calls per call",
                        "OVER_LIMIT", "failed"));
        String podLabel = Server.POD.label;
        overRls.forEach((kind, steps) -> steps.forEach((step, byTarget) -> {
            MixStep pod = byTarget.get(podLabel);
            MixStep other = byTarget.values().stream().filter(s -> s != pod).findFirst().orElse(null);
            double ratio = pod == null || other == null ? Double.NaN : pod.cpuMicrosPerCheck() / other.cpuMicrosPerCheck();
            byTarget.forEach((label, s) -> table.row(kind.label, step, label, Format.rate(s.rate()), Format.millis(s.latency().getValueAtPercentile(50)),
                    Format.millis(s.latency().getValueAtPercentile(99)), s.cpuRead() ? WireScenario.micros(s.cpuMicrosPerCheck()) : "not measured",
                    label.equals(podLabel) && !Double.isNaN(ratio) ? Format.ratio(ratio) : "–", perCheck(s.storeCallsPerCheck()),
                    Format.percent(s.deniedShare()), Format.count(s.failed())));
            if ("saturation".equals(step) && peer.pid().isPresent() && !Double.isNaN(ratio)) {
                section.check("Over RLS, " + kind.label + ": check-service's CPU per call ≤ 0.25 of the peer's (saturation, " + options.wire().connections()
                        + " in flight)", Format.ratio(ratio), ratio <= 0.25);
            }
        }));
        section.table(table);
    }

    /** How the peer must be set up for its answers to be comparable: the descriptors the bench sends, its Redis, its env. */
    static String peerMethod() {
        StringBuilder yaml = new StringBuilder("domain: ").append(Bench.DOMAIN).append("\ndescriptors:\n");
        for (Rule rule : WireChecks.RULES) {
            boolean plan = rule.match().plan() != null;
            Limit.TokenBucket bucket = (Limit.TokenBucket) rule.limit();
            yaml.append("  - key: ").append(plan ? WireChecks.PLAN : WireChecks.ROUTE).append('\n')
                    .append("    value: \"").append(plan ? rule.match().plan() : rule.match().route()).append("\"\n")
                    .append("    descriptors:\n")
                    .append("      - key: ").append(WireChecks.ACCOUNT).append('\n')
                    .append("        rate_limit: { unit: second, requests_per_unit: ").append(bucket.ratePerS() / bucket.periodS()).append(" }\n");
        }
        return "**Over RLS** (issue 29, `--peer-rls=HOST:PORT`, optionally `--peer-rls-pid=N`): the gRPC steps' `ShouldRateLimit` calls "
                + "of each chosen mix (the same domain `" + Bench.DOMAIN + "`, descriptors and keys as check-service gets) go to an Envoy "
                + "RLS v3 server the bench did not start, envoyproxy/ratelimit, and to check-service in turn: at saturation and open loop "
                + "at the same rates, each on its own connections. The bench never builds or downloads the peer; start it first, from "
                + "its own binary, with this configuration (a file in `$RUNTIME_ROOT/$RUNTIME_SUBDIRECTORY/config/`, e.g. "
                + "`/tmp/rls/ratelimit/config/bench.yaml`), the bench's descriptors each at its rule's rate per second:\n\n```yaml\n"
                + yaml + "```\n\nand this environment: `USE_STATSD=false LOG_LEVEL=warn BACKEND_TYPE=redis REDIS_SOCKET_TYPE=tcp "
                + "RUNTIME_ROOT=/tmp/rls RUNTIME_SUBDIRECTORY=ratelimit RUNTIME_WATCH_ROOT=false RUNTIME_IGNOREDOTFILES=true "
                + "GRPC_PORT=8091 PORT=8092 DEBUG_PORT=6071`, with its Redis: `REDIS_TYPE=single REDIS_URL=127.0.0.1:6379` for one "
                + "`redis-server`, or for a Redis Cluster, as check-service uses here, `REDIS_TYPE=cluster "
                + "REDIS_URL=127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002 REDIS_PIPELINE_WINDOW=150us` (it refuses a cluster "
                + "without implicit pipelining). The bench's own cluster takes free ports at each run, so the peer talks to a Redis "
                + "of its own; then run the bench with `--peer-rls=127.0.0.1:8091 --peer-rls-pid=$(pgrep -n ratelimit)`. Its answers "
                + "match check-service's while every key stays under its rate, as the store-bound mix's and the design's under-limit "
                + "clients do: envoyproxy/ratelimit counts a fixed one-second window per descriptor and has no burst, so the design's "
                + "over-limit clients are denied by both in somewhat different shares. **CPU per call** is each process's own: "
                + "check-service's over JMX as above, the peer's from `/proc/<pid>/stat` (user + system, 10 ms ticks); neither "
                + "counts its Redis. Without `--peer-rls-pid` the peer's CPU is not measured and only calls/s and latency are compared.";
    }

    private static String rate(Rule rule) {
        Limit.TokenBucket bucket = (Limit.TokenBucket) rule.limit();
        return String.format(Locale.ROOT, "%,d/s, burst %,d", bucket.ratePerS() / bucket.periodS(), bucket.burst());
    }

    private static String overFloor(Server server, Histogram step, Histogram floor) {
        return server == Server.FLOOR || floor == null ? "–" : WireScenario.signedMillis(step.getValueAtPercentile(99) - floor.getValueAtPercentile(99));
    }

    private static String vsFloor(Server server, double value, double floor) {
        return server == Server.FLOOR || Double.isNaN(value) || Double.isNaN(floor) ? "–" : Format.ratio(value / floor);
    }

    private static String perCheck(double value) {
        return Double.isNaN(value) ? "–" : String.format(Locale.ROOT, "%.2f", value);
    }

    /** Answers check-service gave from its fallback bucket: the store not reached in time, or the shard's breaker open. */
    private static String fallback(Server server, long fallback, long checks) {
        return server == Server.FLOOR || checks == 0 ? "–" : Format.percent((double) fallback / checks);
    }

    private static String denied(Server server, MixStep step) {
        return server == Server.FLOOR ? "–" : Format.percent(step.deniedShare());
    }
}
