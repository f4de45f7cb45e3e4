package dev.tollgate.bench.wire;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;

/**
 * A server the bench runs in a JVM of its own, as a pod runs (scenario 8's servers, scenario 9's services):
 * started with the run's JVM flags, its output in a log file, stopped as a pod is stopped (SIGTERM, then
 * killed if it will not exit) when closed. A server of scenario 8 also opens a JMX port on loopback, which
 * {@link JvmCounters} reads its CPU time, allocated bytes and JIT time from.
 *
 * <p>A child JVM outlives the bench unless stopped: every one not yet closed is stopped by one shutdown hook
 * when the bench's JVM exits, normally, on an uncaught error or on SIGTERM or Ctrl-C.
 */
public final class JavaProcess implements AutoCloseable {

    /** How long a stopped server gets to exit on its own, as a pod gets its termination grace period. */
    private static final long STOP_GRACE_SECONDS = 20;
    /** At exit the bench waits less: the whole shutdown must end before whoever sent SIGTERM loses patience. */
    private static final long EXIT_GRACE_MILLIS = 5_000;
    private static final Set<Process> RUNNING = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(JavaProcess::stopAll, "stop-child-jvms"));
    }

    private final String name;
    private final Process process;
    private final Path log;
    private final long startedNanos;

    private JavaProcess(String name, Process process, Path log, long startedNanos) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.startedNanos = startedNanos;
    }

    /**
     * @param jvmFlags  the run's JVM flags, the same for every server
     * @param jmxPort   loopback port of the JMX agent
     * @param launch    what follows the flags: {@code -jar <jar>} or a class path and main class
     * @param arguments the program's own arguments
     */
    public static JavaProcess start(String name, List<String> jvmFlags, int jmxPort, List<String> launch, List<String> arguments,
                                    Path logDirectory) {
        List<String> flags = new ArrayList<>(jvmFlags);
        flags.addAll(jmxFlags(jmxPort));
        return start(name, flags, launch, arguments, logDirectory);
    }

    /**
     * Without a JMX agent: a service whose figures come from its own endpoints and {@code /proc}.
     *
     * @param launch    what follows the flags: {@code -jar <jar>} or a class path and main class
     * @param arguments the program's own arguments
     */
    public static JavaProcess start(String name, List<String> jvmFlags, List<String> launch, List<String> arguments, Path logDirectory) {
        List<String> command = new ArrayList<>();
        command.add(java());
        command.addAll(jvmFlags);
        command.addAll(launch);
        command.addAll(arguments);
        Path log = logDirectory.resolve(name.replaceAll("[^A-Za-z0-9.-]", "_") + ".log");
        try {
            Files.createDirectories(logDirectory);
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
            long started = System.nanoTime();
            Process process = builder.start();
            RUNNING.add(process);
            return new JavaProcess(name, process, log, started);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + name + ": " + String.join(" ", command), e);
        }
    }

    /** The {@code java} of the JDK the bench runs on: every server runs on the same one. */
    public static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** A JMX agent on loopback only, without authentication: the port is the bench's, for the length of one run. */
    static List<String> jmxFlags(int port) {
        return List.of(
                "-Dcom.sun.management.jmxremote.port=" + port,
                "-Dcom.sun.management.jmxremote.rmi.port=" + port,
                "-Dcom.sun.management.jmxremote.host=127.0.0.1",
                "-Djava.rmi.server.hostname=127.0.0.1",
                "-Dcom.sun.management.jmxremote.authenticate=false",
                "-Dcom.sun.management.jmxremote.ssl=false");
    }

    /**
     * How to run {@code mainClass} of the bench in another JVM: from the bench's own class path when it runs
     * from classes (tests, an IDE), through Spring Boot's launcher when it runs from its executable jar, whose
     * nested jars a plain {@code -cp} cannot read.
     */
    public static List<String> benchMain(Class<?> mainClass) {
        String classPath = System.getProperty("java.class.path");
        if (isBootJar(classPath)) {
            return List.of("-Dloader.main=" + mainClass.getName(), "-cp", classPath,
                    "org.springframework.boot.loader.launch.PropertiesLauncher");
        }
        return List.of("-cp", classPath, mainClass.getName());
    }

    private static boolean isBootJar(String classPath) {
        if (classPath == null || classPath.contains(java.io.File.pathSeparator) || !classPath.endsWith(".jar")) {
            return false;
        }
        try (JarFile jar = new JarFile(classPath)) {
            return jar.getManifest() != null && jar.getManifest().getMainAttributes().getValue("Start-Class") != null;
        } catch (IOException e) {
            return false;
        }
    }

    public String name() {
        return name;
    }

    public long pid() {
        return process.pid();
    }

    /** {@link System#nanoTime()} just before the process was started: where a cold start is measured from. */
    public long startedNanos() {
        return startedNanos;
    }

    /** The process's CPU time so far (all its threads), seconds; NaN where the platform does not tell. */
    public double cpuSeconds() {
        return process.toHandle().info().totalCpuDuration().map(cpu -> cpu.toNanos() / 1e9).orElse(Double.NaN);
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public Path log() {
        return log;
    }

    /** The log's last lines, for an error message when the server did not come up. */
    public String logTail(int lines) {
        try {
            List<String> all = Files.readAllLines(log);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(no log: " + e + ")";
        }
    }

    /**
     * SIGKILL, as a node that loses power or an OOM kill ends a pod: no shutdown hook, no graceful close of its
     * connections. Returns once the process is gone.
     */
    public void kill() {
        process.destroyForcibly();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException(name + " (pid " + process.pid() + ") did not die after SIGKILL");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while killing " + name, e);
        } finally {
            RUNNING.remove(process);
        }
    }

    /** Stops it as a pod is stopped (SIGTERM), then for good if it does not exit within the grace period. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(STOP_GRACE_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        } finally {
            RUNNING.remove(process);
        }
    }

    /** The shutdown hook: SIGTERM to every child still running, at once, then SIGKILL to those still there after a grace. */
    private static void stopAll() {
        List<Process> children = List.copyOf(RUNNING);
        children.forEach(Process::destroy);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(EXIT_GRACE_MILLIS);
        for (Process child : children) {
            try {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !child.waitFor(left, TimeUnit.NANOSECONDS)) {
                    child.destroyForcibly();
                }
            } catch (InterruptedException e) {
                child.destroyForcibly();
            }
        }
    }

    @Override
    public String toString() {
        return name + " (pid " + process.pid() + ")";
    }
}
