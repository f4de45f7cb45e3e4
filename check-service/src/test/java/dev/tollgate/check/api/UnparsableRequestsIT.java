package dev.tollgate.check.api;

import com.sun.management.UnixOperatingSystemMXBean;
import dev.tollgate.check.SharedClusterPod;
import dev.tollgate.testsupport.http.RawHttp;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A request Netty's HTTP decoder cannot read is answered with problem details and a {@code code}, and the
 * connection closed, where Reactor Netty alone answers with an empty body.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class UnparsableRequestsIT {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String CHECK = "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"growth-global\",\"key\":\"%s\"}]}";
    private static final String HEAD = "POST /v1/ratelimit:check HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n";

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        SharedClusterPod.register(registry, "src/test/resources/rules-test.yml");
    }

    @LocalServerPort
    int port;

    @Autowired
    MeterRegistry meters;

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "a length that is no number    | Content-Length: abc\\r\\n\\r\\n{}                                     | 400 | bad_request",
            "a negative length             | Content-Length: -5\\r\\n\\r\\n{}                                      | 400 | bad_request",
            "two lengths                   | Content-Length: 2\\r\\nContent-Length: 3\\r\\n\\r\\n{}                  | 400 | bad_request",
            "a length and chunking         | Content-Length: 2\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n2\\r\\n{}\\r\\n0\\r\\n\\r\\n | 400 | bad_request",
            "a chunk size that is no number | Transfer-Encoding: chunked\\r\\n\\r\\nzz\\r\\n{}\\r\\n0\\r\\n\\r\\n         | 400 | bad_request",
            "a space in a header name      | Bad Name: 1\\r\\nContent-Length: 2\\r\\n\\r\\n{}                        | 400 | bad_request"})
    void unreadableHttpIsABadRequestWithACode(String what, String rest, int status, String code) throws IOException {
        String raw = exchange(HEAD + rest.strip().replace("\\r\\n", "\r\n"));

        assertProblem(raw, status, code);
    }

    @Test
    void aRequestLineOverTheLimitIsUriTooLong() throws IOException {
        String raw = exchange("POST /v1/ratelimit:check?pad=" + "a".repeat(5_000) + " HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n");

        assertProblem(raw, 414, "uri_too_long");
    }

    @Test
    void headersOverTheLimitAreHeadersTooLarge() throws IOException {
        String raw = exchange(HEAD + "X-Pad: " + "a".repeat(10_000) + "\r\nContent-Length: 2\r\n\r\n{}");

        assertProblem(raw, 431, "headers_too_large");
    }

    /**
     * A chunk that breaks after the headers were read: WebFlux is reading the body when Netty's decoder fails and
     * Reactor Netty answers. The service's own answer then cannot go out, and must not be counted (nor logged) as
     * a 500 of the service, which would page whoever watches the 5xx alert for a client's malformed body.
     */
    @Test
    void aBodyWhoseFramingBreaksMidWayIsTheClientsErrorNotAServerError() throws IOException {
        double before = requests("400");

        assertProblem(exchange(HEAD + "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"), 400, "bad_request");

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(requests("400")).isEqualTo(before + 1));
        assertThat(requests("500")).isZero();
    }

    /**
     * A client that closes its connection halfway through its body gets no answer and is owed none: counted as 499
     * (nginx's "client closed request"), on the check's route and through WebFlux alike, and never as a 500 of the
     * service logged at ERROR (which any client could raise at will, and which pages on the 5xx alert).
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "the check's route         | Content-Length: 100",
            "WebFlux                   | Accept: application/*\\r\\nContent-Length: 100",
            "WebFlux with a body too large | Content-Length: 900000"})
    void aClientThatGoesAwayMidBodyIsCountedAs499NotAsAServerError(String path, String headers) throws IOException {
        double before = requests("499");

        RawHttp.abandon(port, HEAD + headers.replace("\\r\\n", "\r\n") + "\r\n\r\n{\"domain\":\"public-api\"");

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(requests("499")).isEqualTo(before + 1));
        assertThat(requests("500")).isZero();
    }

    @Test
    void aCheckBeforeTheBadRequestOnOneConnectionIsAnsweredFirst() throws IOException {
        String check = CHECK.formatted(UUID.randomUUID());

        String raw = exchange(HEAD + "Content-Length: " + check.length() + "\r\n\r\n" + check
                + HEAD + "Content-Length: abc\r\n\r\n{}");

        assertThat(raw).startsWith("HTTP/1.1 200 ");
        int second = raw.indexOf("HTTP/1.1 400 ");
        assertThat(second).as("the malformed request's answer follows the check's: %s", raw).isPositive();
        assertProblem(raw.substring(second), 400, "bad_request");
    }

    @Test
    void theNextConnectionIsServedAsUsual() throws IOException {
        exchange(HEAD + "Content-Length: abc\r\n\r\n{}");
        String check = CHECK.formatted(UUID.randomUUID());

        String raw = exchange(HEAD + "Content-Length: " + check.length() + "\r\nConnection: close\r\n\r\n" + check);

        assertThat(raw).startsWith("HTTP/1.1 200 ").contains("\"remaining\":199");
    }

    /**
     * A malformed request read to its end leaves nothing to linger for. The server's socket is closed,
     * not half-closed for up to 2 s: the client's bytes after the end of the stream are answered with a reset, and a
     * flood of such requests holds none of the pod's file descriptors once answered.
     */
    @Test
    void aMalformedRequestReadToItsEndIsClosedAtOnceNotLingeredOn() throws IOException {
        String malformed = "BAD REQUEST LINE\r\nHost: t\r\n\r\n";
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(malformed.getBytes(StandardCharsets.US_ASCII));
            assertProblem(new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8), 400, "bad_request");

            // a socket closed answers what arrives with a reset; a lingering one reads and drops it
            assertThatThrownBy(() -> {
                for (int i = 0; i < 20; i++) {
                    socket.getOutputStream().write('x');
                    Thread.sleep(50);
                }
            }).as("writing on after the end of the stream").isInstanceOf(IOException.class);
        }

        if (ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean files) {
            int clients = 30;
            List<Socket> answered = new ArrayList<>();
            try {
                long before = files.getOpenFileDescriptorCount();
                for (int i = 0; i < clients; i++) {
                    Socket socket = new Socket("127.0.0.1", port);
                    answered.add(socket);
                    socket.setSoTimeout(10_000);
                    socket.getOutputStream().write(malformed.getBytes(StandardCharsets.US_ASCII));
                    socket.getInputStream().readAllBytes();
                }
                // the clients' own sockets, still open; lingering, the pod would hold as many more
                assertThat(files.getOpenFileDescriptorCount() - before).as("file descriptors open once all were answered")
                        .isLessThan(clients + clients / 2);
            } finally {
                for (Socket socket : answered) {
                    socket.close();
                }
            }
        }
    }

    private static void assertProblem(String raw, int status, String code) {
        assertThat(raw).as(raw).startsWith("HTTP/1.1 " + status + " ");
        String head = raw.substring(0, raw.indexOf("\r\n\r\n")).toLowerCase();
        assertThat(head).contains("content-type: application/problem+json").contains("connection: close");
        JsonNode problem = JSON.readTree(raw.substring(raw.indexOf("\r\n\r\n") + 4));
        assertThat(problem.get("status").asInt()).isEqualTo(status);
        assertThat(problem.get("code").asString()).isEqualTo(code);
        assertThat(problem.get("detail").asString()).startsWith("The request is not HTTP/1.1 this service can read");
    }

    private double requests(String status) {
        return meters.find("http.server.requests").tag("uri", "/v1/ratelimit:check").tag("status", status).timers().stream()
                .mapToDouble(Timer::count).sum();
    }

    /** Every answer here must close the connection: it is read until the server does. */
    private String exchange(String request) throws IOException {
        return RawHttp.untilClosed(port, request);
    }
}
