package dev.tollgate.bench;

import dev.tollgate.bench.scale.ScaleOptions;
import dev.tollgate.bench.soak.SoakOptions;
import dev.tollgate.bench.wire.ColdStarts;
import dev.tollgate.bench.wire.PeerRls;
import dev.tollgate.bench.wire.WireMixOptions;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What one bench run does, from the command line ({@code --name=value}).
 *
 * @param scenarios      which scenarios run, in order (1–11)
 * @param timeScale      multiplies every phase's duration (1 = the durations in the report; the smoke test uses ~0.05)
 * @param loadScale      multiplies every offered rate and in-flight count
 * @param repeats        repeats of the short runs whose result is one number per run (latency, peers); the median is reported
 * @param reportDir      where README.md and report/*.png are written
 * @param commandTimeout the store's per-command deadline for the bench (production default 5 ms; see docs/configuration/check-service.md)
 * @param warmupSeconds  JIT warm-up before the first scenario, not reported
 * @param latencyRates   offered rates of scenario 5, checks per second
 * @param inFlight       checks in flight in scenario 6
 * @param wire           what scenario 8 runs: check-service and the floor over real sockets
 * @param scale          scenario 9's size and the services it starts
 * @param soak           scenario 10's length, fault period, rate and sampling
 * @param wireMixes      scenario 8's mixes beside the design's tables (issue 29) and its RLS peer
 */
public record BenchOptions(
        List<Integer> scenarios,
        double timeScale,
        double loadScale,
        int repeats,
        Path reportDir,
        Duration commandTimeout,
        double warmupSeconds,
        List<Integer> latencyRates,
        int inFlight,
        Wire wire,
        ScaleOptions scale,
        SoakOptions soak,
        WireMixOptions wireMixes,
        List<String> args) {

    /** What runs by default. */
    public static final List<Integer> ALL_SCENARIOS = List.of(1, 2, 3, 4, 5, 6, 7, 8);
    /**
     * Only when asked for: it runs rules-service and the rebalancer from their Boot jars (built by
     * {@code package}) with PostgreSQL, for minutes at its full size.
     */
    public static final int SCALE_SCENARIO = 9;
    /**
     * Only when asked for: two check-service pods under a steady load with faults for half an hour (by default), their
     * heap, threads, descriptors and connections sampled and judged flat or growing.
     */
    public static final int SOAK_SCENARIO = 10;
    /** The highest scenario number: 11, the rule look-up at 10,000 rules, runs only when named, as 9 and 10 do. */
    public static final int LAST_SCENARIO = 12;

    /** The protocols scenario 8 speaks to the servers. */
    public enum Protocol {
        HTTP1("http1", "HTTP/1.1"), H2C("h2c", "h2c"), GRPC("grpc", "gRPC");

        public final String option;
        public final String label;

        Protocol(String option, String label) {
            this.option = option;
            this.label = label;
        }

        static Protocol of(String option) {
            for (Protocol protocol : values()) {
                if (protocol.option.equalsIgnoreCase(option.trim())) {
                    return protocol;
                }
            }
            throw new IllegalArgumentException("--wire-protocols: http1, h2c or grpc, was " + option);
        }
    }

    /**
     * Scenario 8's options.
     *
     * @param rates       open-loop checks per second
     * @param connections connections (HTTP/1.1: requests in flight at once) of every client, and checks in flight at saturation
     * @param protocols   which protocols, in order
     * @param jvmFlags    the JVM flags of both servers (check-service and the floor)
     * @param podJar      check-service's executable jar; null: the built one under check-service/target
     * @param basePort    the first of eight loopback ports the servers take; 0: any free ones
     * @param keys        about how many keys the traffic mix spreads over
     * @param warmupSeconds the cap of the closed-loop load on each server and protocol before the first step, which
     *                    lasts until the server's JIT has settled, so that the steps measure compiled code, not the
     *                    JIT at work; real seconds, not time-scaled (the JIT's pace does not follow the time scale);
     *                    0: no warm-up
     * @param coldStartRounds rounds of cold starts of check-service, each launch once a round (see ColdStarts); 0: none
     * @param coldStartLaunches which launches the cold starts time, in order
     * @param ramp        the cold ramps: what a pod serves from ready until its JIT settles
     */
    public record Wire(List<Integer> rates, int connections, List<Protocol> protocols, List<String> jvmFlags, Path podJar,
                       int basePort, int keys, double warmupSeconds, int coldStartRounds, List<ColdStarts.Launch> coldStartLaunches,
                       Ramp ramp) {

        public static final String DEFAULT_JVM = "-XX:MaxRAM=1g -XX:ActiveProcessorCount=2 -XX:InitialRAMPercentage=50.0 "
                + "-XX:MaxRAMPercentage=70.0 -XX:+UseG1GC -XX:MaxGCPauseMillis=10 -XX:+ExitOnOutOfMemoryError";

        public Wire {
            rates = List.copyOf(rates);
            protocols = List.copyOf(protocols);
            jvmFlags = List.copyOf(jvmFlags);
            coldStartLaunches = List.copyOf(coldStartLaunches);
            if (connections < 1) {
                throw new IllegalArgumentException("--wire-connections must be at least 1, was " + connections);
            }
            if (rates.isEmpty() || rates.stream().anyMatch(rate -> rate < 1)) {
                throw new IllegalArgumentException("--wire-rates: one or more positive rates, was " + rates);
            }
            java.util.Objects.requireNonNull(ramp, "ramp");
            if (basePort < 0 || basePort > 65_530) {
                throw new IllegalArgumentException("--wire-base-port: 0 or a port up to 65530, was " + basePort);
            }
            if (keys < 100) {
                throw new IllegalArgumentException("--wire-keys must be at least 100, was " + keys);
            }
            if (!(warmupSeconds >= 0)) {
                throw new IllegalArgumentException("--wire-warmup-s must be 0 or more, was " + warmupSeconds);
            }
            if (coldStartRounds < 0) {
                throw new IllegalArgumentException("--wire-cold-starts must be 0 or more, was " + coldStartRounds);
            }
            if (coldStartRounds > 0 && coldStartLaunches.isEmpty()) {
                throw new IllegalArgumentException("--wire-cold-start-launches: at least one, or --wire-cold-starts=0");
            }
        }

        /** Whether scenario 8 runs its steps over some protocol (with none, only the cold starts and the cold ramps). */
        public boolean steps() {
            return !protocols.isEmpty();
        }
    }

    /**
     * Scenario 8's cold ramps (issue 29): each launch started cold, with its warm-up before readiness on and off, and loaded
     * from ready until its JIT settles.
     *
     * @param rounds     rounds, each launch and warm-up setting once a round; 0: no cold ramp
     * @param capSeconds the longest a ramp's load lasts, real seconds (the JIT's pace does not follow the time scale)
     * @param launches   which launches, in order
     * @param warmUp     the warm-up settings, in order: true on, false off
     */
    public record Ramp(int rounds, double capSeconds, List<ColdStarts.Launch> launches, List<Boolean> warmUp) {

        public Ramp {
            launches = List.copyOf(launches);
            warmUp = List.copyOf(warmUp);
            if (rounds < 0) {
                throw new IllegalArgumentException("--wire-ramp-rounds must be 0 or more, was " + rounds);
            }
            if (!(capSeconds > 0)) {
                throw new IllegalArgumentException("--wire-ramp-cap-s must be positive, was " + capSeconds);
            }
            if (rounds > 0 && (launches.isEmpty() || warmUp.isEmpty())) {
                throw new IllegalArgumentException("--wire-ramp-launches and --wire-ramp-warm-up: at least one each, or --wire-ramp-rounds=0");
            }
        }

        static List<Boolean> warmUp(String csv) {
            List<Boolean> out = new ArrayList<>();
            for (String part : csv.split(",")) {
                switch (part.trim().toLowerCase(Locale.ROOT)) {
                    case "on" -> out.add(true);
                    case "off" -> out.add(false);
                    case "" -> { }
                    default -> throw new IllegalArgumentException("--wire-ramp-warm-up: on, off or both (on,off), was " + csv);
                }
            }
            return out.stream().distinct().toList();
        }

        static List<ColdStarts.Launch> launches(String option, String csv) {
            try {
                return java.util.Arrays.stream(csv.split(",")).filter(p -> !p.isBlank()).map(ColdStarts.Launch::of).distinct().toList();
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--" + option + ": " + e.getMessage(), e);
            }
        }
    }

    public BenchOptions {
        scenarios = List.copyOf(scenarios);
        for (int scenario : scenarios) {
            if (scenario < 1 || scenario > LAST_SCENARIO) {
                throw new IllegalArgumentException("--scenarios: numbers 1 to " + LAST_SCENARIO + ", was " + scenario);
            }
        }
        if (!(timeScale > 0) || !(loadScale > 0)) {
            throw new IllegalArgumentException("--time-scale and --load-scale must be positive");
        }
        if (repeats < 1) {
            throw new IllegalArgumentException("--repeats must be at least 1, was " + repeats);
        }
        if (inFlight < 1) {
            throw new IllegalArgumentException("--in-flight must be at least 1, was " + inFlight);
        }
        java.util.Objects.requireNonNull(wire, "wire");
        java.util.Objects.requireNonNull(soak, "soak");
        java.util.Objects.requireNonNull(wireMixes, "wireMixes");
        latencyRates = List.copyOf(latencyRates);
        args = List.copyOf(args);
    }

    public static BenchOptions defaults() {
        return parse(new String[0]);
    }

    public static BenchOptions parse(String[] args) {
        List<Integer> scenarios = ALL_SCENARIOS;
        double timeScale = 1;
        double loadScale = 1;
        int repeats = 3;
        Path reportDir = Path.of("bench");
        Duration commandTimeout = Duration.ofMillis(50);
        double warmup = 8;
        List<Integer> latencyRates = List.of(1000, 4000);
        int inFlight = 64;
        List<Integer> wireRates = List.of(1000, 5000, 10000);
        int wireConnections = 16;
        List<Protocol> wireProtocols = List.of(Protocol.values());
        String wireJvm = Wire.DEFAULT_JVM;
        Path podJar = null;
        int wireBasePort = 0;
        int wireKeys = 1000;
        double wireWarmup = 240;
        int wireColdStarts = 3;
        List<ColdStarts.Launch> coldStartLaunches = List.of(ColdStarts.Launch.values());
        int rampRounds = 3;
        double rampCap = 120;
        List<ColdStarts.Launch> rampLaunches = List.of(ColdStarts.Launch.values());
        List<Boolean> rampWarmUp = List.of(true, false);
        ScaleOptions d = ScaleOptions.DEFAULTS;
        int scaleKeys = d.keys();
        int scalePods = d.pods();
        int scaleCycles = d.cycles();
        Path servicesDir = d.servicesDir();
        String rulesHeap = d.rulesHeap();
        String rebalancerHeap = d.rebalancerHeap();
        SoakOptions soak = SoakOptions.DEFAULTS;
        double soakMinutes = soak.minutes();
        double soakFaultEvery = soak.faultEverySeconds();
        double soakRate = soak.rate();
        double soakSample = soak.sampleSeconds();
        double soakGcEvery = soak.gcEverySeconds();
        List<WireMixOptions.Kind> wireMixes = WireMixOptions.DEFAULTS.mixes();
        int wireStoreKeys = WireMixOptions.DEFAULTS.storeBoundKeys();
        String peerRls = null;
        String peerRlsPid = null;
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (!arg.startsWith("--") || eq < 0) {
                throw new IllegalArgumentException("expected --name=value, got " + arg + "\n" + usage());
            }
            String name = arg.substring(2, eq);
            String value = arg.substring(eq + 1);
            switch (name) {
                case "scenarios" -> scenarios = ints(value);
                case "time-scale" -> timeScale = Double.parseDouble(value);
                case "load-scale" -> loadScale = Double.parseDouble(value);
                case "repeats" -> repeats = Integer.parseInt(value);
                case "report" -> reportDir = Path.of(value);
                case "command-timeout-ms" -> commandTimeout = Duration.ofMillis(Long.parseLong(value));
                case "warmup-s" -> warmup = Double.parseDouble(value);
                case "latency-rates" -> latencyRates = ints(value);
                case "in-flight" -> inFlight = Integer.parseInt(value);
                case "wire-rates" -> wireRates = ints(value);
                case "wire-connections" -> wireConnections = Integer.parseInt(value);
                case "wire-protocols" -> wireProtocols = value.trim().equalsIgnoreCase("none") ? List.of()
                        : java.util.Arrays.stream(value.split(",")).filter(p -> !p.isBlank()).map(Protocol::of).toList();
                case "wire-jvm" -> wireJvm = value;
                case "wire-pod-jar" -> podJar = Path.of(value);
                case "wire-base-port" -> wireBasePort = Integer.parseInt(value);
                case "wire-keys" -> wireKeys = Integer.parseInt(value);
                case "wire-warmup-s" -> wireWarmup = Double.parseDouble(value);
                case "wire-cold-starts" -> wireColdStarts = Integer.parseInt(value);
                case "wire-ramp-rounds" -> rampRounds = Integer.parseInt(value);
                case "wire-ramp-cap-s" -> rampCap = Double.parseDouble(value);
                case "wire-cold-start-launches" -> coldStartLaunches = Ramp.launches(name, value);
                case "wire-ramp-launches" -> rampLaunches = Ramp.launches(name, value);
                case "wire-ramp-warm-up" -> rampWarmUp = Ramp.warmUp(value);
                case "scale-keys" -> scaleKeys = Integer.parseInt(value);
                case "scale-pods" -> scalePods = Integer.parseInt(value);
                case "scale-cycles" -> scaleCycles = Integer.parseInt(value);
                case "scale-services" -> servicesDir = Path.of(value);
                case "scale-rules-heap" -> rulesHeap = value;
                case "scale-rebalancer-heap" -> rebalancerHeap = value;
                case "soak-minutes" -> soakMinutes = Double.parseDouble(value);
                case "soak-fault-every-s" -> soakFaultEvery = Double.parseDouble(value);
                case "soak-rate" -> soakRate = Double.parseDouble(value);
                case "soak-sample-s" -> soakSample = Double.parseDouble(value);
                case "soak-gc-every-s" -> soakGcEvery = Double.parseDouble(value);
                case "wire-mixes" -> wireMixes = WireMixOptions.kinds(value);
                case "wire-store-keys" -> wireStoreKeys = Integer.parseInt(value);
                case "peer-rls" -> peerRls = value;
                case "peer-rls-pid" -> peerRlsPid = value;
                default -> throw new IllegalArgumentException("unknown option --" + name + "\n" + usage());
            }
        }
        return new BenchOptions(scenarios, timeScale, loadScale, repeats, reportDir, commandTimeout, warmup,
                latencyRates, inFlight, new Wire(wireRates, wireConnections, wireProtocols,
                List.of(wireJvm.trim().split("\\s+")), podJar, wireBasePort, wireKeys, wireWarmup,
                wireColdStarts, coldStartLaunches, new Ramp(rampRounds, rampCap, rampLaunches, rampWarmUp)),
                new ScaleOptions(scaleKeys, scalePods, scaleCycles, servicesDir, rulesHeap, rebalancerHeap),
                new SoakOptions(soakMinutes, soakFaultEvery, soakRate, soakSample, soakGcEvery),
                new WireMixOptions(wireMixes, wireStoreKeys, peerOf(peerRls, peerRlsPid)), List.of(args));
    }

    public static String usage() {
        return String.join("\n",
                "usage: " + BenchJar.RUN + " [--name=value ...]",
                "  --scenarios=1,2,3,4,5,6,7,8 which scenarios (default 1-8; 9, the control path at scale, 10, the soak, 11, the rule look-up, and 12, the count-after flood, only when named)",
                "  --time-scale=1            multiply every phase's duration",
                "  --load-scale=1            multiply every offered rate",
                "  --repeats=3               repeats of the short runs of scenarios 5 and 6 (median reported)",
                "  --report=bench            folder for README.md and report/*.png",
                "  --command-timeout-ms=50   the store's per-command deadline",
                "  --warmup-s=8              JIT warm-up before the first scenario",
                "  --latency-rates=1000,4000 offered checks/s of scenario 5",
                "  --in-flight=64            checks in flight in scenario 6",
                "  --wire-rates=1000,5000,10000 open-loop checks/s of scenario 8",
                "  --wire-connections=16     connections per client (and checks in flight at saturation) in scenario 8",
                "  --wire-protocols=http1,h2c,grpc  what scenario 8 speaks to the servers (none: no steps, only the cold starts and ramps)",
                "  --wire-jvm='" + Wire.DEFAULT_JVM + "'",
                "                            JVM flags of check-service and the floor in scenario 8",
                "  --wire-pod-jar=PATH       check-service's jar (default: check-service/target/tollgate-check-service-*.jar)",
                "  --wire-base-port=0        first of 8 loopback ports for scenario 8's servers (0: any free)",
                "  --wire-keys=1000          about how many keys scenario 8's traffic mix uses",
                "  --wire-warmup-s=240       scenario 8 loads each server over each protocol until its JIT settles, at most this long",
                "                            (real seconds, not time-scaled; 0: no warm-up)",
                "  --wire-cold-starts=3      rounds of check-service cold starts, fat jar and fast-start.sh's layouts in turn (0: none)",
                "  --wire-cold-start-launches=fat-jar,fat-jar-aot,extracted-aot,fast-start,fast-start-aot,image  which launches start cold",
                "  --wire-ramp-rounds=3      rounds of cold ramps: each launch started cold, loaded from ready until its JIT settles (0: none)",
                "  --wire-ramp-cap-s=120     the longest a cold ramp's load lasts (real seconds, not time-scaled)",
                "  --wire-ramp-launches=fat-jar,fat-jar-aot,extracted-aot,fast-start,fast-start-aot,image  which launches ramp",
                "  --wire-ramp-warm-up=on,off  the pod's warm-up before readiness (tollgate.warm-up.enabled) in the ramps: on, off or both",
                "  --scale-keys=1000000      scenario 9: budget keys over three regions",
                "  --scale-pods=150          scenario 9: simulated pods long-polling rules-service",
                "  --scale-cycles=6          scenario 9: measured rebalancer cycles (after 2 warm ones)",
                "  --scale-services=.        scenario 9: the checkout whose rules-service/target and budget-rebalancer/target hold the Boot jars",
                "  --scale-rules-heap=2g     scenario 9: rules-service's -Xmx",
                "  --scale-rebalancer-heap=1g scenario 9: the rebalancer's -Xmx",
                "  --soak-minutes=30         scenario 10: how long the soak runs (real minutes; 3 for a quick look)",
                "  --soak-fault-every-s=270  scenario 10: a fault this often, taking turns: frozen primary, killed primary, killed pod",
                "  --soak-rate=600           scenario 10: checks/s offered over both pods (HTTP and gRPC)",
                "  --soak-sample-s=15        scenario 10: each pod sampled this often",
                "  --soak-gc-every-s=60      scenario 10: a full GC forced in each pod this often (jcmd GC.run), never during a fault",
                "  --wire-mixes=design,store-bound  scenario 8: the mixes compared with the floor over HTTP/1.1 and sent to the RLS peer",
                "                            (the design's mix's own tables run either way)",
                "  --wire-store-keys=20000   scenario 8: keys of the store-bound mix (each must stay far under its 5/s route bucket)",
                "  --peer-rls=HOST:PORT      scenario 8: an envoyproxy/ratelimit (or any Envoy RLS v3 server) already running, sent the",
                "                            gRPC steps' calls beside check-service; the bench never builds or starts it",
                "  --peer-rls-pid=N          its process id, so its CPU per call is read from /proc/N/stat (without: calls/s and latency only)");
    }

    /** The phase length for a nominal {@code seconds}, scaled, never below 0.1 s. */
    public double seconds(double nominal) {
        return Math.max(0.1, nominal * timeScale);
    }

    /** An offered rate for a nominal one, scaled, never below 5/s. */
    public double rate(double nominal) {
        return Math.max(5, nominal * loadScale);
    }

    public String commandLine() {
        return args.isEmpty() ? "" : " " + String.join(" ", args);
    }

    private static Optional<PeerRls> peerOf(String hostPort, String pid) {
        if (hostPort == null) {
            if (pid != null) {
                throw new IllegalArgumentException("--peer-rls-pid needs --peer-rls=HOST:PORT");
            }
            return Optional.empty();
        }
        return Optional.of(PeerRls.parse(hostPort, pid));
    }

    private static List<Integer> ints(String csv) {
        List<Integer> out = new ArrayList<>();
        for (String part : csv.split(",")) {
            if (!part.isBlank()) {
                out.add(Integer.parseInt(part.trim().toLowerCase(Locale.ROOT)));
            }
        }
        return out;
    }
}
