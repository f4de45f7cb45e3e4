package dev.tollgate.testsupport.fuzz;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The shared fuzz run against a real loopback HTTP server that answers as each test sets it to. Which answers
 * are late is the test's to say: the server holds the tries it names until the test ends. Every other answer
 * must come within the timeout, generous for an unheld answer of a few bytes on a busy machine; the server
 * holds by case and try, not by request number, so an unheld answer that is late all the same shifts nothing.
 */
class FuzzRunTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    private static final long ANY_GROWTH = 1L << 40;

    private final CountDownLatch release = new CountDownLatch(1);
    /** Tries so far, by path: each case below has a path of its own. */
    private final Map<String, AtomicInteger> tries = new ConcurrentHashMap<>();
    private ExecutorService threads;
    private HttpServer server;
    /** By path, the tries (1 = the first) held unanswered until the test ends: a stall, or with the one after it a hang. */
    private volatile Map<String, Set<Integer>> held = Map.of();
    private volatile int status = 200;
    private volatile String contentType = "application/json";
    private volatile String body = "{}";

    @BeforeEach
    void startServer() throws Exception {
        threads = Executors.newCachedThreadPool();
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(threads);
        server.createContext("/", exchange -> {
            String path = exchange.getRequestURI().getPath();
            int attempt = tries.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
            if (held.getOrDefault(path, Set.of()).contains(attempt)) {
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            exchange.getRequestBody().readAllBytes();
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", contentType);
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        });
        server.start();
    }

    @AfterEach
    void stopServer() {
        release.countDown();
        server.stop(0);
        threads.shutdownNow();
    }

    private FuzzRun run(int maxStalls) throws Exception {
        FuzzRun run = new FuzzRun("test fuzz", server.getAddress().getPort(), TIMEOUT, maxStalls);
        // the client's first request loads its classes and opens the connection: before the run, as the fuzzers do
        run.send(call("warm-up"));
        run.start();
        return run;
    }

    /** A case of its own path, /{@code kind}. */
    private static FuzzCall call(String kind) {
        return FuzzCall.json(kind, "POST", "/" + kind, "{\"a\":1}");
    }

    private int triesOf(String kind) {
        AtomicInteger count = tries.get("/" + kind);
        return count == null ? 0 : count.get();
    }

    @Test
    void countsACaseAnsweredInTimeAndEndsWithItsFiguresLine() throws Exception {
        FuzzRun run = run(3);

        run.check(call("fine"), answer -> assertThat(answer.body()).isEqualTo("{}"));

        assertThat(run.finish(1, ANY_GROWTH)).startsWith("test fuzz: 1 cases").contains("statuses {200=1}", "kinds {fine=1}");
    }

    @Test
    void refusesA5xxAndThenDoesNotJudgeTheFailedRun() throws Exception {
        status = 500;
        FuzzRun run = run(3);

        assertThatThrownBy(() -> run.check(call("broken"), answer -> { }))
                .isInstanceOf(AssertionError.class).hasMessageContaining("answered 500");
        // a failed run is not asked for its cases or its heap: the case's own failure says what went wrong
        assertThat(run.finish(10, 0)).startsWith("test fuzz: 1 cases");
    }

    @Test
    void acceptsA4xxOnlyAsAProblemWithACodeAndItsStatus() throws Exception {
        status = 400;
        contentType = "application/problem+json";
        body = "{\"status\":400,\"code\":\"bad_request\"}";
        FuzzRun run = run(3);
        run.check(call("problem"), answer -> { });

        body = "{\"status\":400}";
        assertThatThrownBy(() -> run.check(call("no-code"), answer -> { })).isInstanceOf(AssertionError.class);

        contentType = "application/json";
        body = "{\"status\":400,\"code\":\"bad_request\"}";
        assertThatThrownBy(() -> run.check(call("not-a-problem"), answer -> { })).isInstanceOf(AssertionError.class);
    }

    @Test
    void aFailureOfTheFuzzersOwnCheckFailsTheRunToo() throws Exception {
        FuzzRun run = run(3);

        assertThatThrownBy(() -> run.check(call("fine"), answer -> assertThat(answer.body()).isEqualTo("[]")))
                .isInstanceOf(AssertionError.class);
        assertThat(run.finish(10, 0)).startsWith("test fuzz: 1 cases");
    }

    @Test
    void givesALateCaseASecondTryAndCountsIt() throws Exception {
        held = Map.of("/late", Set.of(1));
        FuzzRun run = run(3);
        run.check(call("first"), answer -> { });

        run.check(call("late"), answer -> { });

        assertThat(triesOf("first")).isEqualTo(1);
        assertThat(triesOf("late")).isEqualTo(2);
        assertThat(run.finish(2, ANY_GROWTH)).contains("answered only on a second try: [late at case 1 (the case before: first: POST /first");
    }

    @Test
    void failsACaseNotAnsweredTwice() throws Exception {
        held = Map.of("/hung", Set.of(1, 2));
        FuzzRun run = run(3);

        assertThatThrownBy(() -> run.check(call("hung"), answer -> { }))
                .isInstanceOf(AssertionError.class).hasMessageStartingWith("no answer within 1000 ms, twice, to hung: POST /hung");
        assertThat(triesOf("hung")).isEqualTo(2);
    }

    @Test
    void failsTheRunPastItsStalls() throws Exception {
        held = Map.of("/late", Set.of(1), "/late-again", Set.of(1));
        FuzzRun run = run(1);
        run.check(call("late"), answer -> { });

        assertThatThrownBy(() -> run.check(call("late-again"), answer -> { }))
                .isInstanceOf(AssertionError.class).hasMessageContaining("more than 1 answers later than 1000 ms");
    }

    @Test
    void asksForTheCasesItWasToRun() throws Exception {
        FuzzRun run = run(3);
        run.check(call("fine"), answer -> { });

        assertThatThrownBy(() -> run.finish(2, ANY_GROWTH)).isInstanceOf(AssertionError.class).hasMessageContaining("1 cases");
    }
}
