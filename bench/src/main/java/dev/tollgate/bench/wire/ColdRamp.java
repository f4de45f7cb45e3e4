package dev.tollgate.bench.wire;

import dev.tollgate.bench.BenchOptions.Protocol;
import dev.tollgate.bench.load.ClosedLoop;
import dev.tollgate.bench.load.Stats;
import dev.tollgate.bench.load.Timeline;
import dev.tollgate.bench.load.Timeline.Series;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What a pod the autoscaler adds serves from the moment it is ready (issue 29): check-service started cold in the Helm
 * chart's shape, launch by launch as {@link ColdStarts} starts it, with its warm-up before readiness on or off; from
 * the moment readiness is UP on its management port, saturation load (closed loop, the JIT warm-up step's client and
 * mix) until its JIT settles by {@link JitSettle}'s rule or the cap, checks answered counted second by second. Its
 * compilers' total is read from the pod's own {@code /actuator/prometheus} ({@code jvm_compilation_time_ms_total}), as
 * the chart's pod monitor scrapes it: a chart-shaped pod has no JMX agent, which would add to its start.
 */
public final class ColdRamp {

    /** How often the load pauses to read the compilers' total: a closed loop of this length between readings. */
    private static final double READ_SECONDS = 1;
    /** A slice waits for its last checks before the next starts, so a cold pod's slow answers never pile up. */
    private static final double SLICE_DRAIN_SECONDS = 30;
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(180);
    private static final long POLL_MILLIS = 5;

    /** A launch with its warm-up before readiness on or off. */
    public record Variant(ColdStarts.Launch launch, boolean warmUp) {

        public String label() {
            return launch.label + ", warm-up " + (warmUp ? "on" : "off");
        }

        /** Short enough for a chart's legend. */
        public String shortLabel() {
            String name = switch (launch) {
                case FAT_JAR -> "java -jar";
                case FAT_JAR_AOT -> "jar, Spring AOT";
                case EXTRACTED_AOT -> "extracted, Spring AOT (chart)";
                case CLASS_CACHE -> "fast-start.sh";
                case SPRING_AOT -> "AOT=on fast-start.sh";
                case IMAGE -> "the Dockerfile's image (chart)";
            };
            return name + ", warm-up " + (warmUp ? "on" : "off");
        }
    }

    /**
     * @param pod            the jar, JVM flags, store, saved rules and probe, as the cold starts use them
     * @param variants       the launches and warm-up settings, in the order each round starts them
     * @param rounds         rounds, each variant once a round
     * @param capSeconds     the longest a ramp's load lasts, real seconds
     * @param firstSeconds   the first stretch after ready whose checks/s is compared with the settled rate (clipped to a ramp's length)
     * @param connections    connections of the client, and checks in flight
     * @param podArguments   arguments every start adds (the store's command timeout)
     * @param warmUpMaxDuration the warm-up's longest run when on, passed to the pod; null: the pod's own default
     * @param nextCheck      the mix's next check
     */
    public record Settings(ColdStarts.Settings pod, List<Variant> variants, int rounds, double capSeconds, double firstSeconds,
                           int connections, List<String> podArguments, Duration warmUpMaxDuration, JitSettle rule,
                           Supplier<WireCheck> nextCheck) {

        public Settings {
            variants = List.copyOf(variants);
            podArguments = List.copyOf(podArguments);
        }
    }

    /**
     * One start and its ramp.
     *
     * @param firstAnswerSeconds from the start to the first enforced verdict
     * @param readySeconds       from the start to readiness UP
     * @param settled            whether the JIT settled before the cap
     * @param seconds            the load's length, from ready
     * @param perSecond          enforced answers in each whole second from ready
     * @param firstSeconds       the stretch {@code firstRate} is over (the asked stretch, or the ramp's length if shorter)
     * @param firstRate          enforced answers per second over {@code firstSeconds} from ready
     * @param settledRate        enforced answers per second over the ramp's last {@link JitSettle#windowSeconds()} (its length if shorter)
     * @param failed             checks failed, answered in fallback or not answered
     */
    public record Ramp(double firstAnswerSeconds, double readySeconds, boolean settled, double seconds, double[] perSecond,
                       double firstSeconds, double firstRate, double settledRate, long failed) {

        public double ratio() {
            return firstRate / settledRate;
        }

        /**
         * @param samples the compilers' totals read during the ramp, the first before any load
         * @param first   the stretch after ready to compare with the settled rate
         */
        static Ramp of(double firstAnswerSeconds, double readySeconds, JitSettle rule, List<JitSettle.Sample> samples, boolean settled,
                       Timeline timeline, double first) {
            double length = samples.get(samples.size() - 1).seconds();
            double[] perSecond = new double[(int) Math.floor(length)];
            for (int i = 0; i < perSecond.length; i++) {
                perSecond[i] = answered(timeline, i, i + 1);
            }
            double firstSeconds = Math.min(first, length);
            double window = Math.min(rule.windowSeconds(), length);
            // a slice's checks were all answered (or given up) before its reading: none is counted after the end
            long sent = timeline.sum(Series.SENT, 0, length + 1);
            return new Ramp(firstAnswerSeconds, readySeconds, settled, length, perSecond, firstSeconds,
                    answered(timeline, 0, firstSeconds) / firstSeconds, answered(timeline, length - window, length) / window,
                    sent - answered(timeline, 0, length + 1));
        }

        /** Enforced verdicts, by when their checks were sent: a fallback answer is counted as allowed or denied too, and taken off. */
        static long answered(Timeline timeline, double from, double to) {
            return timeline.sum(Series.ALLOWED, from, to) + timeline.sum(Series.DENIED, from, to) - timeline.sum(Series.FALLBACK, from, to);
        }
    }

    /**
     * @param ramps   each variant's ramps, in the order they ran
     * @param skipped launches that could not be made, and why
     */
    public record Result(Map<Variant, List<Ramp>> ramps, Map<ColdStarts.Launch, String> skipped) {

        public double median(Variant variant, java.util.function.ToDoubleFunction<Ramp> figure) {
            return Stats.median(ramps.getOrDefault(variant, List.of()).stream().mapToDouble(figure).toArray());
        }

        /** Each second from ready, the median across the variant's rounds that lasted that long. */
        public double[] medianPerSecond(Variant variant) {
            List<Ramp> each = ramps.getOrDefault(variant, List.of());
            int longest = each.stream().mapToInt(ramp -> ramp.perSecond().length).max().orElse(0);
            double[] median = new double[longest];
            for (int i = 0; i < longest; i++) {
                int second = i;
                median[i] = Stats.median(each.stream().filter(ramp -> ramp.perSecond().length > second)
                        .mapToDouble(ramp -> ramp.perSecond()[second]).toArray());
            }
            return median;
        }
    }

    private ColdRamp() {
    }

    /** Every variant once a round, taking turns; launches {@code prepared} could not make are skipped. */
    public static Result measure(Settings settings, ColdStarts.Prepared prepared, Ports ports, Path work) {
        Map<Variant, List<Ramp>> ramps = new LinkedHashMap<>();
        Map<ColdStarts.Launch, String> skipped = new EnumMap<>(ColdStarts.Launch.class);
        Ports.PodPorts pod = ports.pod();
        for (int round = 1; round <= settings.rounds(); round++) {
            for (Variant variant : settings.variants()) {
                List<String> command = prepared.commands().get(variant.launch());
                if (command == null) {
                    skipped.put(variant.launch(), prepared.skipped().getOrDefault(variant.launch(), "not prepared"));
                    continue;
                }
                Ramp ramp = pod.start(variant.label(), () -> ramp(settings, variant, command, pod, work));
                System.out.printf(Locale.ROOT, "  scenario 8: cold ramp %d of %d, %s: first enforced answer %.2f s, ready %.2f s; "
                                + "%s after %.0f s; %,.0f checks/s in the first %.0f s, %,.0f settled (%.0f%%); per second: %s%n",
                        round, settings.rounds(), variant.label(), ramp.firstAnswerSeconds(), ramp.readySeconds(),
                        ramp.settled() ? "settled" : "not settled at the cap", ramp.seconds(), ramp.firstRate(), ramp.firstSeconds(),
                        ramp.settledRate(), 100 * ramp.ratio(), String.join(" ", java.util.Arrays.stream(ramp.perSecond())
                                .mapToObj(v -> String.format(Locale.ROOT, "%.0f", v)).toList()));
                ramps.computeIfAbsent(variant, v -> new ArrayList<>()).add(ramp);
            }
        }
        return new Result(ramps, skipped);
    }

    /** The pod's own arguments for a variant: the chart's, the run's, and the warm-up on or off (said either way: defaults change). */
    static List<String> arguments(Settings settings, Variant variant, int http, int management, int grpc) {
        List<String> arguments = new ArrayList<>(ChartPod.arguments(http, management, grpc, settings.pod().redisNodes(),
                "http://127.0.0.1:1", settings.pod().snapshot()));
        arguments.addAll(settings.podArguments());
        arguments.add("--tollgate.warm-up.enabled=" + variant.warmUp());
        if (variant.warmUp() && settings.warmUpMaxDuration() != null) {
            arguments.add("--tollgate.warm-up.max-duration=" + settings.warmUpMaxDuration().toMillis() + "ms");
        }
        return arguments;
    }

    private static Ramp ramp(Settings settings, Variant variant, List<String> command, Ports.PodPorts pod, Path work) {
        int http = pod.http();
        int management = pod.management();
        String name = "cold-ramp-" + variant.launch().key + "-warm-up-" + (variant.warmUp() ? "on" : "off");
        JavaProcess process = JavaProcess.start(name, List.of(), command, arguments(settings, variant, http, management, pod.grpc()), work);
        try {
            ServerUnderTest.FirstAnswer first = ServerUnderTest.firstAnswer(name, process, http, settings.pod().probe(),
                    response -> response.statusCode() == 200 && ServerUnderTest.enforced(response.body()));
            HttpClient poller = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofMillis(500)).build();
            double ready = awaitReady(name, process, poller, management);
            return load(settings, first.seconds(), ready, poller, http, management);
        } finally {
            process.close();
        }
    }

    /** Polls readiness on the management port every 5 ms until it is UP; answers when that was, seconds from the start. */
    private static double awaitReady(String name, JavaProcess process, HttpClient poller, int management) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + management + "/actuator/health/readiness"))
                .timeout(Duration.ofSeconds(2)).build();
        long deadline = process.startedNanos() + READY_TIMEOUT.toNanos();
        String last = "no answer";
        try {
            while (System.nanoTime() < deadline) {
                if (!process.isAlive()) {
                    throw new IllegalStateException(name + " exited before it was ready; its log " + process.log() + " ends:\n"
                            + process.logTail(30));
                }
                try {
                    HttpResponse<String> response = poller.send(request, HttpResponse.BodyHandlers.ofString());
                    if (response.statusCode() == 200) {
                        return (System.nanoTime() - process.startedNanos()) / 1e9;
                    }
                    last = response.statusCode() + " " + response.body();
                } catch (IOException e) {
                    last = e.toString();
                }
                Thread.sleep(POLL_MILLIS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while " + name + " was getting ready", e);
        }
        throw new IllegalStateException(name + " was not ready within " + READY_TIMEOUT.toSeconds() + " s; readiness last said: " + last
                + "; its log " + process.log() + " ends:\n" + process.logTail(30));
    }

    /** Saturation from ready, in slices of a second each followed by a reading of the compilers, until settled or the cap. */
    private static Ramp load(Settings settings, double firstAnswer, double ready, HttpClient poller, int http, int management) {
        JitSettle rule = settings.rule();
        double cap = settings.capSeconds();
        Timeline timeline = new Timeline(System.nanoTime(), cap + SLICE_DRAIN_SECONDS + 10, null);
        ClosedLoop load = new ClosedLoop(timeline, settings.connections());
        HttpRequest scrape = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + management + "/actuator/prometheus"))
                .timeout(Duration.ofSeconds(5)).build();
        List<JitSettle.Sample> samples = new ArrayList<>();
        Optional<JitSettle.Sample> settled = Optional.empty();
        try (WireClient client = WireClient.connect(Protocol.HTTP1, "127.0.0.1", http, settings.connections())) {
            samples.add(new JitSettle.Sample(since(timeline), compilationMillis(poller, scrape), 0));
            while (settled.isEmpty() && since(timeline) < cap) {
                load.run(Math.min(cap, since(timeline) + READ_SECONDS), 0, SLICE_DRAIN_SECONDS, null,
                        () -> client.send(settings.nextCheck().get()));
                double now = since(timeline);
                samples.add(new JitSettle.Sample(now, compilationMillis(poller, scrape), Ramp.answered(timeline, 0, now + 1)));
                settled = rule.settledAt(samples);
            }
        }
        return Ramp.of(firstAnswer, ready, rule, samples, settled.isPresent(), timeline, settings.firstSeconds());
    }

    /** The pod's JIT compilers' total time, from its own scrape. */
    private static long compilationMillis(HttpClient poller, HttpRequest scrape) {
        try {
            HttpResponse<String> response = poller.send(scrape, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("the pod's /actuator/prometheus answered " + response.statusCode());
            }
            return Math.round(PrometheusText.parse(response.body()).sum("jvm_compilation_time_ms_total")
                    .orElseThrow(() -> new IllegalStateException("the pod's scrape has no jvm_compilation_time_ms_total")));
        } catch (IOException e) {
            throw new IllegalStateException("could not scrape the pod's compilation time: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while scraping the pod", e);
        }
    }

    private static double since(Timeline timeline) {
        return (System.nanoTime() - timeline.startNanos()) / 1e9;
    }
}
