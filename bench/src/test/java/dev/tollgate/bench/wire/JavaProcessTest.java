package dev.tollgate.bench.wire;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class JavaProcessTest {

    /** Small, quick JVMs: the test only starts them and stops them. */
    private static final List<String> SMALL_JVM = List.of("-Xmx64m", "-XX:TieredStopAtLevel=1", "-Xss512k");

    @TempDir
    Path logs;

    @Test
    void fromClassesAnotherMainRunsOnTheSameClassPath() {
        // the tests run from classes, not from the bench's executable jar
        assertThat(JavaProcess.benchMain(FloorServer.class))
                .containsExactly("-cp", System.getProperty("java.class.path"), FloorServer.class.getName());
    }

    @Test
    void theJmxAgentListensOnLoopbackOnOnePort() {
        assertThat(JavaProcess.jmxFlags(21105)).contains(
                "-Dcom.sun.management.jmxremote.port=21105",
                "-Dcom.sun.management.jmxremote.rmi.port=21105",
                "-Dcom.sun.management.jmxremote.host=127.0.0.1");
    }

    @Test
    void closingStopsTheServerAndLeavesItsLog() throws Exception {
        JavaProcess sleeper = JavaProcess.start("a sleeper", SMALL_JVM, JavaProcess.benchMain(Sleeper.class), List.of(), logs);
        assertThat(sleeper.isAlive()).isTrue();

        sleeper.close();

        assertThat(sleeper.isAlive()).isFalse();
        assertThat(sleeper.log()).isEqualTo(logs.resolve("a_sleeper.log")).exists();
    }

    @Test
    void aServerStillRunningWhenTheBenchIsTerminatedIsStoppedWithIt() throws Exception {
        // a bench (another JVM) that starts a server and is then sent SIGTERM, as kill or a Ctrl-C does
        ProcessHandle server = null;
        try (JavaProcess bench = JavaProcess.start("bench", SMALL_JVM, JavaProcess.benchMain(StartsAServer.class),
                List.of(logs.toString()), logs)) {
            server = ProcessHandle.of(serverPid(bench)).orElseThrow();
            assertThat(server.isAlive()).isTrue();

            bench.close();

            assertThat(bench.isAlive()).isFalse();
            server.onExit().get(15, TimeUnit.SECONDS);
            assertThat(server.isAlive()).as("the server the bench started").isFalse();
        } finally {
            if (server != null) {
                server.destroyForcibly();
            }
        }
    }

    /** What the bench's log says the server's pid is, once it has started it. */
    private static long serverPid(JavaProcess bench) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (!bench.isAlive()) {
                throw new IllegalStateException("the bench exited: " + bench.logTail(20));
            }
            if (Files.exists(bench.log())) {
                for (String line : Files.readAllLines(bench.log())) {
                    if (line.startsWith("server pid ")) {
                        return Long.parseLong(line.substring("server pid ".length()).trim());
                    }
                }
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("the bench did not start its server within 60 s: " + bench.logTail(20));
    }

    /** A bench in miniature: starts a server in a JVM of its own and waits to be ended. */
    public static final class StartsAServer {

        public static void main(String[] args) throws InterruptedException {
            JavaProcess server = JavaProcess.start("server", SMALL_JVM, JavaProcess.benchMain(Sleeper.class), List.of(), Path.of(args[0]));
            System.out.println("server pid " + server.pid());
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }

    /** A server that does nothing until it is ended. */
    public static final class Sleeper {

        public static void main(String[] args) throws InterruptedException {
            Thread.sleep(Long.MAX_VALUE);
        }
    }
}
