package dev.tollgate.bench.soak;

import dev.tollgate.bench.Bench;
import dev.tollgate.bench.BenchOptions;
import dev.tollgate.bench.Scenario;
import dev.tollgate.bench.load.OpenLoop;
import dev.tollgate.bench.load.Timeline;
import dev.tollgate.bench.report.Charts;
import dev.tollgate.bench.report.Section;
import dev.tollgate.bench.wire.ChartPod;
import dev.tollgate.bench.wire.PodJar;
import dev.tollgate.bench.wire.Ports;
import dev.tollgate.testsupport.redis.Node;
import dev.tollgate.testsupport.redis.RedisCluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Scenario 10, the soak: two check-service pods from the packaged jar, each a JVM of its own in the Helm chart's
 * shape, on a Redis Cluster of three primaries with a replica each (node timeout 5 s, as the chart's), at the
 * production store timeout of 5 ms; a steady mixed load over HTTP and Envoy's gRPC at a fixed rate for half an hour
 * (by default); a fault every few minutes, taking turns (a frozen primary, a killed primary, a killed pod), each
 * recovered from as production would; and each pod sampled every few seconds. Every check is counted by when it was
 * due ({@link Ledger}); every bounded series is judged flat or growing ({@link Drift}).
 */
public final class SoakScenario implements Scenario {

    /** After a fault has recovered, its window stays open this long: for breakers to close and clients to come back. */
    static final double SETTLE_SECONDS = 5;
    static final Duration FREEZE = Duration.ofSeconds(10);
    private static final Duration RECOVERY_TIMEOUT = Duration.ofSeconds(90);
    private static final int MAX_IN_FLIGHT = 100_000;
    /** The pod that runs the whole soak; the other is the one that is killed. */
    static final int STEADY_POD = 0;
    static final int KILLED_POD = 1;

    @Override
    public int number() {
        return BenchOptions.SOAK_SCENARIO;
    }

    @Override
    public String title() {
        return "Soak: two pods, a steady mixed load and a fault every few minutes";
    }

    /** What the soak measured, for the write-up. */
    record Run(SoakOptions options, List<ChartPod> pods, List<List<PodSample>> samples, List<double[]> lifeStarts, List<Fault> faults,
               List<double[]> gcWindows, Ledger ledger, double seconds, long shed, long senderLate, double senderMaxLag, long newAccounts,
               Path jar, String jarSha256, Instant jarBuilt, String redisVersion, double loadBefore, double loadAfter, String started) {
    }

    @Override
    public Section run(Bench bench, Charts charts) {
        BenchOptions options = bench.options();
        SoakOptions soak = options.soak();
        Path reportFolder = options.reportDir().resolve(Charts.FOLDER);
        Path logs = reportFolder.resolve("s10-logs");
        Path work;
        try {
            work = Files.createTempDirectory("tollgate-bench-soak-");
        } catch (IOException e) {
            throw new UncheckedIOException("could not make the soak's work directory", e);
        }
        try {
            Run run = soak(options, soak, work, logs);
            return SoakReport.write(run, this, charts, reportFolder, options);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("the soak was interrupted", e);
        } finally {
            deleteQuietly(work);
        }
    }

    private Run soak(BenchOptions options, SoakOptions soak, Path work, Path logs) throws InterruptedException {
        // a copy of its own: a pod started again mid-soak must run the jar the soak started with, whatever is installed since
        Path source = PodJar.of(options.wire());
        Path jar = work.resolve(source.getFileName());
        copy(source, jar);
        String sha = sha256(jar);
        Instant built = modified(source);
        String started = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
        double loadBefore = loadAverage();
        System.out.printf("  scenario 10: %s soak at %,.0f checks/s, a fault every %.0f s; pods from %s (sha256 %s…)%n",
                minutes(soak.seconds()), soak.rate(), soak.faultEverySeconds(), source, sha.substring(0, 12));
        SoakTraffic traffic = new SoakTraffic(Long.toString(System.currentTimeMillis() % 100_000, 36));
        try (RedisCluster cluster = RedisCluster.builder().replicas(true).start()) {
            Set<Integer> redisPorts = cluster.nodes().stream().map(Node::port).collect(Collectors.toUnmodifiableSet());
            String redisVersion = redisVersion(cluster);
            Ports ports = new Ports(options.wire().basePort());
            List<String> command = new ArrayList<>(options.wire().jvmFlags());
            // the chart's: Spring AOT on where the pod watches rules-service, as it does here
            command.add("-Dspring.aot.enabled=true");
            command.addAll(List.of("-jar", jar.toString()));
            List<ChartPod> pods = new ArrayList<>();
            for (String name : List.of("pod-a", "pod-b")) {
                Path snapshot = work.resolve(name + "-rules-snapshot.json");
                write(snapshot, SoakTraffic.snapshot());
                pods.add(new ChartPod(new ChartPod.Settings(name, command, cluster.clusterNodes(), snapshot,
                        // no rules-service: the pods enforce their saved snapshot, and their watcher retries all along
                        "http://127.0.0.1:1",
                        List.of("--tollgate.redis.command-timeout=5ms", "--tollgate.pods.min=2"),
                        ports.next(), ports.next(), ports.next(), logs, traffic.probe())));
            }
            List<double[]> lifeStarts = List.of(new double[16], new double[16]);
            try {
                for (ChartPod pod : pods) {
                    pod.start();
                    System.out.printf("  scenario 10: %s answered in %.1f s (pid %d)%n", pod.name(), pod.lastStartSeconds(), pod.pid());
                }
                return drive(soak, cluster, pods, traffic, redisPorts, lifeStarts, jar, sha, built, redisVersion, loadBefore, started);
            } finally {
                pods.forEach(ChartPod::close);
            }
        }
    }

    private Run drive(SoakOptions soak, RedisCluster cluster, List<ChartPod> pods, SoakTraffic traffic, Set<Integer> redisPorts,
                      List<double[]> lifeStarts, Path jar, String sha, Instant built, String redisVersion, double loadBefore, String started)
            throws InterruptedException {
        double length = soak.seconds();
        Ledger ledger = new Ledger(length + 30);
        Timeline timeline = new Timeline(System.nanoTime(), length + 30, null);
        long startNanos = timeline.startNanos();
        List<Fault> faults = Collections.synchronizedList(new ArrayList<>());
        List<double[]> gcWindows = Collections.synchronizedList(new ArrayList<>());
        List<List<PodSample>> samples = List.of(Collections.synchronizedList(new ArrayList<>()), Collections.synchronizedList(new ArrayList<>()));
        try (SoakLoad load = new SoakLoad(pods, traffic, ledger, startNanos)) {
            OpenLoop loop = new OpenLoop(timeline, soak.rate(), MAX_IN_FLIGHT, sequence -> load.send(sequence, soak.rate()));
            Thread sender = new Thread(() -> {
                loop.runUntil(length);
                loop.drain(SoakLoad.RESPONSE_TIMEOUT.toSeconds() + 3);
            }, "soak-sender");
            Sampler sampler = new Sampler(soak, pods, load, redisPorts, samples, gcWindows, startNanos);
            Thread sampling = new Thread(sampler::run, "soak-sampler");
            sender.start();
            sampling.start();
            try {
                double[] schedule = Fault.schedule(soak);
                for (int i = 0; i < schedule.length; i++) {
                    sleepUntil(startNanos, schedule[i]);
                    Fault.Kind kind = Fault.Kind.of(i + 1);
                    sampler.faultActive = true;
                    Fault fault = inject(i + 1, kind, cluster, pods, startNanos, lifeStarts);
                    faults.add(fault);
                    System.out.printf(Locale.ROOT, "  scenario 10: fault %d at %s: %s, %s; %s%n", fault.number(), minutes(fault.start()),
                            kind.label, fault.target(), fault.detail());
                    sleepUntil(startNanos, fault.windowEnd());
                    sampler.faultActive = false;
                }
                // the sampler's last round ends before the load does; the pods stay up for it
                sampling.join(TimeUnit.SECONDS.toMillis((long) length + 120));
                sender.join(TimeUnit.SECONDS.toMillis((long) length + 120));
            } finally {
                sampler.stop();
                sampling.interrupt();
                sampling.join(30_000);
                if (sender.isAlive()) {
                    sender.interrupt();
                }
            }
            return new Run(soak, pods, samples, lifeStarts, List.copyOf(faults), List.copyOf(gcWindows), ledger, length,
                    timeline.sum(Timeline.Series.SHED, 0, length + 30), loop.late(), loop.maxLagSeconds(), traffic.newAccounts(),
                    jar, sha, built, redisVersion, loadBefore, loadAverage(), started);
        }
    }

    /** Injects one fault and waits for the recovery a production region would go through. */
    private static Fault inject(int number, Fault.Kind kind, RedisCluster cluster, List<ChartPod> pods, long startNanos,
                                List<double[]> lifeStarts) {
        double start = since(startNanos);
        try {
            return switch (kind) {
                case FREEZE_PRIMARY -> {
                    int shard = shardOf(number);
                    Node node = cluster.primaries().get(shard);
                    node.freeze();
                    Thread.sleep(FREEZE.toMillis());
                    node.unfreeze();
                    double thawed = since(startNanos);
                    cluster.awaitHealthy(RECOVERY_TIMEOUT);
                    double healthy = since(startNanos);
                    boolean stillPrimary = node.isPrimary();
                    yield new Fault(number, kind, node.toString(), shard, start, healthy, healthy + SETTLE_SECONDS, String.format(Locale.ROOT,
                            "frozen %.1f s; the cluster healthy %.1f s after SIGCONT; %s", thawed - start, healthy - thawed,
                            stillPrimary ? "still the shard's primary (no failover)" : "its replica took over during the freeze; it is a replica now"));
                }
                case KILL_PRIMARY -> {
                    int shard = shardOf(number);
                    Node node = cluster.primaries().get(shard);
                    node.kill();
                    Node promoted = cluster.awaitPromotedReplicaFor(node, RECOVERY_TIMEOUT);
                    double promotedAt = since(startNanos);
                    cluster.restart(node);
                    cluster.awaitHealthy(RECOVERY_TIMEOUT);
                    double healthy = since(startNanos);
                    boolean replica = !node.isPrimary();
                    yield new Fault(number, kind, node.toString(), shard, start, healthy, healthy + SETTLE_SECONDS, String.format(Locale.ROOT,
                            "%s promoted %.1f s after the kill; the old primary started again and the cluster healthy %.1f s after that, "
                                    + "the old primary %s", promoted, promotedAt - start, healthy - promotedAt,
                            replica ? "a replica" : "a primary again"));
                }
                case KILL_POD -> {
                    ChartPod pod = pods.get(KILLED_POD);
                    long pid = pod.pid();
                    pod.kill();
                    double killed = since(startNanos);
                    // the kubelet starts a crashed container again at once (back-off only from its second crash in a row)
                    lifeStarts.get(KILLED_POD)[Math.min(15, pod.lives())] = killed;
                    pod.start();
                    double back = since(startNanos);
                    yield new Fault(number, kind, pod.name() + " (pid " + pid + ")", -1, start, back, back + SETTLE_SECONDS,
                            String.format(Locale.ROOT, "started again at once, its first enforced verdict %.1f s after the kill (pid %d)",
                                    back - killed, pod.pid()));
                }
            };
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during fault " + number, e);
        } catch (RuntimeException e) {
            // a recovery that did not come is the finding; the soak goes on so the ledger shows what followed
            double now = since(startNanos);
            return new Fault(number, kind, "?", -1, start, now, now + SETTLE_SECONDS, "**recovery failed**: " + e.getMessage());
        }
    }

    /**
     * The primary faults take the shards in turn, counting only themselves: faults 1, 2, 4, 5, 7 (the pod kills are 3, 6,
     * ...) hit shards 0, 1, 2, 0, 1, so a half hour's four primary faults meet every shard.
     */
    static int shardOf(int number) {
        int primaryFaultsBefore = (number - 1) - (number - 1) / 3;
        return primaryFaultsBefore % 3;
    }

    /**
     * Samples each live pod every {@code sampleSeconds}; every {@code gcEverySeconds}, outside a fault, first forces a
     * full GC in it with {@code jcmd <pid> GC.run} (System.gc(): G1's full collection), so that its live data after GC
     * is the live set. The pods take their forced GCs in turn, never both at once.
     */
    static final class Sampler {

        private final SoakOptions options;
        private final List<ChartPod> pods;
        private final SoakLoad load;
        private final Set<Integer> redisPorts;
        private final List<List<PodSample>> samples;
        private final List<double[]> gcWindows;
        private final long startNanos;
        private final double[] lastGc;
        volatile boolean faultActive;
        private volatile boolean stopped;

        Sampler(SoakOptions options, List<ChartPod> pods, SoakLoad load, Set<Integer> redisPorts, List<List<PodSample>> samples,
                List<double[]> gcWindows, long startNanos) {
            this.options = options;
            this.pods = pods;
            this.load = load;
            this.redisPorts = redisPorts;
            this.samples = samples;
            this.gcWindows = gcWindows;
            this.startNanos = startNanos;
            this.lastGc = new double[pods.size()];
        }

        /** Samples until the last round before the load's end: the pods are still up and loaded for every sample taken. */
        void run() {
            for (long round = 1; !stopped && round * options.sampleSeconds() < options.seconds(); round++) {
                try {
                    sleepUntil(startNanos, round * options.sampleSeconds());
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < pods.size(); i++) {
                    ChartPod pod = pods.get(i);
                    long pid = pod.pid();
                    if (pid <= 0 || stopped) {
                        continue;
                    }
                    double now = since(startNanos);
                    boolean forced = false;
                    if (!faultActive && now - lastGc[i] >= options.gcEverySeconds()) {
                        forced = forceGc(pid);
                        double after = since(startNanos);
                        gcWindows.add(new double[] {now, after + 0.2});
                        lastGc[i] = after;
                    }
                    samples.get(i).add(PodSample.take(since(startNanos), pod, forced, redisPorts, load.answeredBy(i)));
                }
            }
        }

        void stop() {
            stopped = true;
        }

        private static boolean forceGc(long pid) {
            Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
            try {
                Process process = new ProcessBuilder(jcmd.toString(), Long.toString(pid), "GC.run").redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    return false;
                }
                return process.exitValue() == 0;
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    static double since(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    private static void sleepUntil(long startNanos, double seconds) throws InterruptedException {
        long wait = startNanos + (long) (seconds * 1e9) - System.nanoTime();
        if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(wait);
        }
    }

    static String minutes(double seconds) {
        return String.format(Locale.ROOT, "%d:%02d", (long) seconds / 60, (long) seconds % 60);
    }

    private static double loadAverage() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private static String redisVersion(RedisCluster cluster) {
        try {
            Process process = new ProcessBuilder("redis-server", "--version").redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes()).trim();
            process.waitFor(5, TimeUnit.SECONDS);
            int v = out.indexOf("v=");
            return v < 0 ? out : out.substring(v + 2, out.indexOf(' ', v));
        } catch (IOException | RuntimeException e) {
            return "unknown";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    static String sha256(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            byte[] buffer = new byte[1 << 16];
            for (int n; (n = in.read(buffer)) > 0; ) {
                digest.update(buffer, 0, n);
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (IOException e) {
            throw new UncheckedIOException("could not read " + file, e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Instant modified(Path file) {
        try {
            return Files.getLastModifiedTime(file).toInstant();
        } catch (IOException e) {
            return Instant.EPOCH;
        }
    }

    private static void copy(Path from, Path to) {
        try {
            Files.copy(from, to, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("could not copy " + from, e);
        }
    }

    private static void write(Path file, byte[] bytes) {
        try {
            Files.write(file, bytes);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write " + file, e);
        }
    }

    private static void deleteQuietly(Path directory) {
        try (var files = Files.walk(directory)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // a temporary folder
        }
    }
}
