package dev.tollgate.testsupport.fuzz;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fuzz run against a service on a loopback port (issue 11: hostile input gets a clear 4xx and costs
 * nothing). Every case ({@link #check}) must be answered within the timeout, or on a second try a few
 * times a run ({@link #secondChance}), never with a 5xx, and every 4xx as an RFC 9457 problem with a
 * {@code code} and its own status; the fuzzer adds what its API promises besides. At the end
 * ({@link #finish}) the run must have had its cases, and the heap after it stays within a bound.
 *
 * <p>Plain Java: the fuzzer's property framework (jqwik) drives it from its own lifecycle hooks.
 */
public final class FuzzRun {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final String name;
    private final int port;
    private final Duration timeout;
    private final int maxStalls;
    private final HttpClient http;
    private FuzzFigures figures;

    /**
     * @param name      what the figures line starts with
     * @param timeout   how long one try of a case may take
     * @param maxStalls how many cases a run tolerates being answered only on their second try
     */
    public FuzzRun(String name, int port, Duration timeout, int maxStalls) {
        this.name = name;
        this.port = port;
        this.timeout = timeout;
        this.maxStalls = maxStalls;
        // HTTP/1.1 with keep-alive: the fuzzer measures the service, not connection set-up
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();
        this.figures = new FuzzFigures(name);
    }

    /** What a fuzzer checks of an answer beyond what every answer must pass. */
    @FunctionalInterface
    public interface AnswerCheck {
        void check(HttpResponse<String> answer) throws Exception;
    }

    /** The call once, neither timed nor counted: for set-up and warm-up before {@link #start}. */
    public HttpResponse<String> send(FuzzCall call) throws Exception {
        return http.send(call.toRequest(port, timeout), HttpResponse.BodyHandlers.ofString());
    }

    /** From here cases count, and the heap is measured: after class loading, JIT and the fuzzer's set-up. */
    public void start() {
        figures = new FuzzFigures(name);
        figures.start();
    }

    /**
     * One case: sent, timed and counted; its answer must pass what every answer must, then {@code more}.
     * A failure marks the run failed, so that {@link #finish} does not judge the heap of a broken run.
     */
    public void check(FuzzCall call, AnswerCheck more) throws Exception {
        try {
            answersInTimeWithoutA5xx(call, more);
        } catch (Exception | AssertionError e) {
            figures.fail();
            throw e;
        }
    }

    private void answersInTimeWithoutA5xx(FuzzCall call, AnswerCheck more) throws Exception {
        long started = System.nanoTime();
        HttpResponse<String> answer;
        try {
            answer = send(call);
        } catch (HttpTimeoutException late) {
            answer = secondChance(call, late);
        }
        figures.answered(call, answer.statusCode(), System.nanoTime() - started);

        int status = answer.statusCode();
        String body = answer.body();
        assertThat(status).as("%s answered %d: %s", call.describe(), status, body).isBetween(200, 499);
        more.check(answer);
        if (status >= 400) {
            assertThat(answer.headers().firstValue("Content-Type")).as("%s answered %d: %s", call.describe(), status, body)
                    .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
            JsonNode problem = JSON.readTree(body);
            assertThat(problem.path("code").asString("")).as("%s answered %d: %s", call.describe(), status, body).isNotBlank();
            assertThat(problem.path("status").asInt()).isEqualTo(status);
        }
    }

    /**
     * A case not answered within the timeout: the same request again, once. A hang (a future never
     * completed, a wedged event loop) does not answer the second time either and fails the run; a stall
     * of a loaded 2-core machine does, and is counted. More than {@code maxStalls} fail it too.
     */
    private HttpResponse<String> secondChance(FuzzCall call, HttpTimeoutException late) throws Exception {
        try {
            HttpResponse<String> answer = send(call);
            figures.stalled(call);
            assertThat(figures.stalls()).as("more than %d answers later than %d ms; the last to %s", maxStalls, timeout.toMillis(),
                    call.describe()).isLessThanOrEqualTo(maxStalls);
            return answer;
        } catch (HttpTimeoutException again) {
            again.addSuppressed(late);
            throw new AssertionError("no answer within " + timeout.toMillis() + " ms, twice, to " + call.describe(), again);
        }
    }

    /**
     * Ends the run: prints its figures line, then, unless a case failed (its own failure says what went
     * wrong; the heap after a failed run says nothing), asserts at least {@code tries} cases ran and the
     * used heap after GC grew by at most {@code heapGrowth} bytes. Returns the figures line.
     */
    public String finish(int tries, long heapGrowth) {
        long after = FuzzFigures.usedHeapAfterGc();
        String report = figures.finish(after);
        System.out.println(report);
        if (figures.failed()) {
            return report;
        }
        assertThat(figures.cases()).as(report).isGreaterThanOrEqualTo(tries);
        assertThat(after).as("used heap after GC grew by more than %d MB: %s", heapGrowth >> 20, report)
                .isLessThanOrEqualTo(figures.heapBefore() + heapGrowth);
        return report;
    }
}
