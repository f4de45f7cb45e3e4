package dev.tollgate.bench.wire;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * check-service started as the Helm chart starts a pod, that can be killed and started again on the same ports, as a
 * Deployment restarts a container: its check port, its gRPC port and a management port of its own (where
 * {@code /actuator/prometheus} is, as the chart's pod monitor scrapes it), no JMX agent, rules watched from a
 * rules-service and enforced meanwhile from the pod's saved snapshot. Each start waits for the first enforced
 * verdict, polled every 5 ms, as a cold start of {@link ColdStarts} does.
 */
public final class ChartPod implements AutoCloseable {

    /** Where the pod's ports are and what it runs on. */
    public record Settings(String name, List<String> command, String redisNodes, Path snapshot, String rulesServiceUrl,
                           List<String> extraArguments, int httpPort, int managementPort, int grpcPort, Path logDirectory,
                           byte[] probe) {

        public Settings {
            command = List.copyOf(command);
            extraArguments = List.copyOf(extraArguments);
        }
    }

    private final Settings settings;
    private volatile JavaProcess process;
    private volatile double lastStartSeconds = Double.NaN;
    private int lives;

    public ChartPod(Settings settings) {
        this.settings = settings;
    }

    /**
     * The chart's arguments: the ports on loopback, the region's Redis Cluster, rules from {@code rulesServiceUrl} with
     * the saved snapshot as what the pod enforces until (or while) that does not answer.
     */
    public static List<String> arguments(int http, int management, int grpc, String redisNodes, String rulesServiceUrl, Path snapshot) {
        return List.of(
                "--server.address=127.0.0.1",
                "--server.port=" + http,
                "--management.server.address=127.0.0.1",
                "--management.server.port=" + management,
                "--tollgate.grpc.address=127.0.0.1",
                "--tollgate.grpc.port=" + grpc,
                "--spring.data.redis.cluster.nodes=" + redisNodes,
                "--tollgate.rules.service-url=" + rulesServiceUrl,
                "--tollgate.rules.snapshot-file=" + snapshot,
                "--tollgate.region.name=bench",
                "--spring.main.banner-mode=off",
                "--logging.level.root=WARN");
    }

    /** Starts the pod (again, after a kill) and returns once it gave an enforced verdict. */
    public synchronized void start() {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException(settings.name() + " is running");
        }
        lives++;
        List<String> arguments = new ArrayList<>(arguments(settings.httpPort(), settings.managementPort(), settings.grpcPort(),
                settings.redisNodes(), settings.rulesServiceUrl(), settings.snapshot()));
        arguments.addAll(settings.extraArguments());
        // each life a log of its own: a killed pod's last lines are evidence
        JavaProcess started = JavaProcess.start(settings.name() + "-life" + lives, List.of(), settings.command(), arguments,
                settings.logDirectory());
        ServerUnderTest.FirstAnswer first = ServerUnderTest.firstAnswer(settings.name(), started, settings.httpPort(), settings.probe(),
                response -> response.statusCode() == 200 && ServerUnderTest.enforced(response.body()));
        lastStartSeconds = first.seconds();
        process = started;
    }

    /** SIGKILL: the pod dies with its connections and checks in flight. */
    public synchronized void kill() {
        JavaProcess running = process;
        if (running == null) {
            throw new IllegalStateException(settings.name() + " is not running");
        }
        running.kill();
    }

    public String name() {
        return settings.name();
    }

    public int httpPort() {
        return settings.httpPort();
    }

    public int grpcPort() {
        return settings.grpcPort();
    }

    public int managementPort() {
        return settings.managementPort();
    }

    /** How many times it was started. */
    public synchronized int lives() {
        return lives;
    }

    /** The running process's pid, or -1 while it is down (killed and not started again yet). */
    public long pid() {
        JavaProcess running = process;
        return running != null && running.isAlive() ? running.pid() : -1;
    }

    public boolean isAlive() {
        JavaProcess running = process;
        return running != null && running.isAlive();
    }

    /** From the last start to its first enforced verdict, seconds. */
    public double lastStartSeconds() {
        return lastStartSeconds;
    }

    public Path log() {
        JavaProcess running = process;
        return running == null ? null : running.log();
    }

    @Override
    public void close() {
        JavaProcess running = process;
        if (running != null) {
            running.close();
        }
    }

    @Override
    public String toString() {
        return settings.name() + (process == null ? "" : " (" + process + ")");
    }
}
