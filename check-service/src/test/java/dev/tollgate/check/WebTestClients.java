package dev.tollgate.check;

import org.springframework.boot.webtestclient.autoconfigure.WebTestClientBuilderCustomizer;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import reactor.core.publisher.Mono;

import java.io.File;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.LockInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.MonitorInfo;
import java.lang.management.ThreadInfo;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;

/**
 * The WebTestClients of check-service's tests: a generous response timeout, and a failure that says what the
 * machine was doing when an answer did not come.
 *
 * <p>Why: twice on CI a request got no answer within WebTestClient's default 5 s, some 175 s into the test JVM, the
 * first request to a freshly started context, and nothing was left to tell a stalled JVM on a loaded 2-core box
 * from a server that stopped reading (docs/edge-review-answers.md, "The 5-second stall"). An answer missing after {@link #TIMEOUT}
 * now fails with the state of the connection ({@code ss}: ESTABLISHED with Recv-Q above 0 is a read never
 * re-armed), the stacks of the HTTP event loops (idle, or blocked, and on what) and the JVM's GC time and load.
 */
public final class WebTestClients {

    public static final Duration TIMEOUT = Duration.ofSeconds(20);
    /** WebTestClient's own timeout comes after the filter's, so that the failure is the one with the diagnostics. */
    private static final Duration GRACE = Duration.ofSeconds(5);
    /** Reactor Netty's global loops, and a context's own (Spring's ReactorResourceFactory, api.EventLoops). */
    private static final Pattern EVENT_LOOPS = Pattern.compile("(reactor|webflux)-http-.*");

    private WebTestClients() {
    }

    /** For a context's auto-configured client ({@code @AutoConfigureWebTestClient}): {@code @Import} this. */
    public static final class AutoConfigured implements WebTestClientBuilderCustomizer {

        @Override
        public void customize(WebTestClient.Builder builder) {
            patient(builder, TIMEOUT);
        }
    }

    /** A client of the server on {@code port} of loopback, answering within {@link #TIMEOUT}. */
    public static WebTestClient to(String port) {
        return to(port, TIMEOUT);
    }

    public static WebTestClient to(String port, Duration timeout) {
        return patient(WebTestClient.bindToServer().baseUrl("http://127.0.0.1:" + port), timeout).build();
    }

    /** The builder, its answers due within {@code timeout} or failed with diagnostics. */
    public static WebTestClient.Builder patient(WebTestClient.Builder builder, Duration timeout) {
        return builder.responseTimeout(timeout.plus(GRACE)).filter(answeredWithin(timeout));
    }

    private static ExchangeFilterFunction answeredWithin(Duration timeout) {
        // the answer's head: what the stalls lacked; a body that stalls after it meets WebTestClient's own timeout
        return (request, next) -> {
            AtomicReference<String> seen = new AtomicReference<>();
            // seen before the timeout cancels the exchange: closing the connection would change what ss shows
            Mono<Long> due = Mono.delay(timeout).doOnNext(late -> seen.set(diagnostics(request.url().getPort())));
            return next.exchange(request).timeout(due, Mono.defer(() -> Mono.error(new NoAnswer(request, timeout, seen.get()))));
        };
    }

    /** No answer in time; its message holds what was seen at that moment. */
    static final class NoAnswer extends IllegalStateException {

        NoAnswer(ClientRequest request, Duration timeout, String diagnostics) {
            super("No answer to " + request.method() + " " + request.url() + " within " + timeout.toSeconds() + " s\n" + diagnostics);
        }
    }

    static String diagnostics(int port) {
        StringBuilder out = new StringBuilder();
        long gcMillis = ManagementFactory.getGarbageCollectorMXBeans().stream().mapToLong(GarbageCollectorMXBean::getCollectionTime).sum();
        out.append("at ").append(Instant.now()).append(", JVM up ").append(ManagementFactory.getRuntimeMXBean().getUptime() / 1000)
                .append(" s, GC ").append(gcMillis).append(" ms in all, load average ")
                .append(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage()).append('\n');
        out.append(sockets(port));
        ThreadInfo[] threads = ManagementFactory.getThreadMXBean().dumpAllThreads(true, true);
        List<ThreadInfo> loops = Arrays.stream(threads).filter(thread -> EVENT_LOOPS.matcher(thread.getThreadName()).matches()).toList();
        out.append("--- HTTP event loops: ").append(loops.size()).append(" of ").append(threads.length).append(" threads\n");
        loops.forEach(thread -> out.append(stack(thread)));
        return out.toString();
    }

    /** Every TCP socket to or from the port, with its queues and TCP state, if {@code ss} is installed. */
    private static String sockets(int port) {
        Optional<Path> ss = executable("ss");
        if (ss.isEmpty()) {
            return "--- ss: not installed\n";
        }
        String filter = "( sport = :" + port + " or dport = :" + port + " )";
        try {
            Process process = new ProcessBuilder(ss.get().toString(), "-tanip", filter).redirectErrorStream(true).start();
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return "--- ss -tanip '" + filter + "': no output in 5 s\n";
            }
            return "--- ss -tanip '" + filter + "'\n" + new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "--- ss: " + e + "\n";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "--- ss: interrupted\n";
        }
    }

    private static Optional<Path> executable(String name) {
        String path = System.getenv().getOrDefault("PATH", "") + File.pathSeparator + "/usr/sbin" + File.pathSeparator + "/sbin";
        return Arrays.stream(path.split(File.pathSeparator)).filter(dir -> !dir.isEmpty())
                .map(dir -> Path.of(dir, name)).filter(Files::isExecutable).findFirst();
    }

    /** As jstack prints a thread, every frame: ThreadInfo's own toString stops at eight. */
    private static String stack(ThreadInfo thread) {
        StringBuilder out = new StringBuilder("\"").append(thread.getThreadName()).append("\" #").append(thread.getThreadId())
                .append(' ').append(thread.getThreadState());
        if (thread.getLockName() != null) {
            out.append(" on ").append(thread.getLockName());
            if (thread.getLockOwnerName() != null) {
                out.append(" owned by \"").append(thread.getLockOwnerName()).append('"');
            }
        }
        out.append('\n');
        StackTraceElement[] frames = thread.getStackTrace();
        for (int i = 0; i < frames.length; i++) {
            out.append("\tat ").append(frames[i]).append('\n');
            for (MonitorInfo monitor : thread.getLockedMonitors()) {
                if (monitor.getLockedStackDepth() == i) {
                    out.append("\t- locked ").append(monitor).append('\n');
                }
            }
        }
        for (LockInfo lock : thread.getLockedSynchronizers()) {
            out.append("\t- holds ").append(lock).append('\n');
        }
        return out.append('\n').toString();
    }
}
