package dev.tollgate.check.api;

import dev.tollgate.common.check.ProblemCodes;
import dev.tollgate.check.SharedClusterPod;
import dev.tollgate.check.WebTestClients;
import dev.tollgate.testsupport.http.RawHttp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.context.annotation.Import;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;

/** The check contract over HTTP, against a real Redis Cluster: answers, and every bad input's status and code. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@AutoConfigureWebTestClient
@Import(WebTestClients.AutoConfigured.class)
class CheckApiIT {

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        SharedClusterPod.register(registry, "src/test/resources/rules-test.yml");
    }

    @Autowired
    WebTestClient http;

    @LocalServerPort
    int port;

    @Test
    void answersTheDesignsExample() {
        String key = "acct_" + UUID.randomUUID();
        check("""
                {"domain":"public-api","entries":[
                  {"rule":"growth-global","key":"%s","cost":1},
                  {"rule":"labels-route","key":"%s","cost":1}]}
                """.formatted(key, key))
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.verdict").isEqualTo("allow")
                .jsonPath("$.entries[0].rule").isEqualTo("growth-global")
                .jsonPath("$.entries[0].remaining").isEqualTo(199)
                .jsonPath("$.entries[0].reset_ms").isNumber()
                .jsonPath("$.entries[1].rule").isEqualTo("labels-route")
                .jsonPath("$.entries[1].remaining").isEqualTo(1)
                .jsonPath("$.entries[0].unknown_rule").doesNotExist()
                .jsonPath("$.entries[0].retry_ms").doesNotExist();
    }

    @Test
    void answersAsItsOpenApiDocumentSays() throws Exception {
        JsonNode document = YAMLMapper.builder().build().readTree(openApiDocument());
        JsonNode schemas = document.at("/components/schemas");
        String request = document.at("/paths/~1v1~1ratelimit:check/post/requestBody/content/application~1json/examples/design/value")
                .toString().replace("acct_7Q2", "acct_" + UUID.randomUUID());

        String body = check(request).expectStatus().isOk().expectBody(String.class).returnResult().getResponseBody();
        JsonNode response = JsonMapper.builder().build().readTree(body);

        assertThat(names(response)).isSubsetOf(names(schemas.at("/CheckResponse/properties")));
        assertThat(response.get("entries").valueStream()).allSatisfy(entry ->
                assertThat(names(entry)).isSubsetOf(names(schemas.at("/EntryResult/properties"))));
        assertThat(schemas.at("/Verdict/enum").valueStream().map(JsonNode::asString)).contains(response.get("verdict").asString());
        List<String> documentedCodes = schemas.at("/Problem/properties/code/enum").valueStream().map(JsonNode::asString).toList();
        for (java.lang.reflect.Field code : ProblemCodes.class.getDeclaredFields()) {
            assertThat(documentedCodes).as("the document lists problem code %s", code.getName()).contains((String) code.get(null));
        }
    }

    private static String openApiDocument() throws IOException {
        for (java.nio.file.Path dir = java.nio.file.Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            java.nio.file.Path file = dir.resolve("docs/openapi/check-service.yaml");
            if (java.nio.file.Files.isRegularFile(file)) {
                return java.nio.file.Files.readString(file);
            }
        }
        throw new IllegalStateException("no docs/openapi/check-service.yaml above the working directory");
    }

    private static List<String> names(JsonNode object) {
        return object.propertyNames().stream().toList();
    }

    @Test
    void aDenyIsA200WithTheVerdictAndRetry() {
        String key = "acct_" + UUID.randomUUID();
        String body = """
                {"domain":"public-api","entries":[{"rule":"labels-route","key":"%s"}]}""".formatted(key);
        check(body).expectStatus().isOk();
        check(body).expectStatus().isOk();
        check(body).expectStatus().isOk()
                .expectBody()
                .jsonPath("$.verdict").isEqualTo("deny")
                .jsonPath("$.entries[0].verdict").isEqualTo("deny")
                .jsonPath("$.entries[0].retry_ms").isNumber();
    }

    @Test
    void anUnknownRuleIsAllowedAndFlagged() {
        check("""
                {"domain":"public-api","entries":[{"rule":"no-such-rule","key":"k","cost":1}]}""")
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.verdict").isEqualTo("allow")
                .jsonPath("$.entries[0].unknown_rule").isEqualTo(true);
    }

    @Test
    void aLoginKeyWithBracesAndUnderscoresIsJustAKey() {
        check("""
                {"domain":"auth","entries":[{"rule":"login-ip","key":"{user}_%s"}]}""".formatted(UUID.randomUUID()))
                .expectStatus().isOk()
                .expectBody().jsonPath("$.entries[0].remaining").isEqualTo(4);
    }

    static Stream<Arguments> badRequests() {
        String sixtyFiveEntries = IntStream.range(0, 65)
                .mapToObj(i -> "{\"rule\":\"free-global\",\"key\":\"k" + i + "\"}")
                .collect(Collectors.joining(",", "{\"domain\":\"public-api\",\"entries\":[", "]}"));
        return Stream.of(
                Arguments.of("malformed JSON", "{\"domain\":", 400, "bad_request"),
                Arguments.of("not an object", "[1,2,3]", 400, "bad_request"),
                Arguments.of("empty body", "", 400, "bad_request"),
                Arguments.of("entries of the wrong type", "{\"domain\":\"d\",\"entries\":\"x\"}", 400, "bad_request"),
                Arguments.of("missing domain", "{\"entries\":[{\"rule\":\"free-global\",\"key\":\"k\"}]}", 422, "invalid_request"),
                Arguments.of("empty entries", "{\"domain\":\"public-api\",\"entries\":[]}", 422, "invalid_request"),
                Arguments.of("65 entries", sixtyFiveEntries, 422, "invalid_request"),
                Arguments.of("cost negative", entry("\"cost\":-3"), 422, "invalid_request"),
                Arguments.of("cost not an integer", entry("\"cost\":1.5"), 422, "invalid_request"),
                Arguments.of("cost above the rule's largest", "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"growth-global\",\"key\":\"k\",\"cost\":11}]}", 422, "invalid_request"),
                Arguments.of("cost a string", entry("\"cost\":\"lots\""), 400, "bad_request"),
                Arguments.of("empty key", "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"free-global\",\"key\":\"\"}]}", 422, "invalid_request"),
                Arguments.of("key over 256 bytes", "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"free-global\",\"key\":\"" + "x".repeat(257) + "\"}]}", 422, "invalid_request"),
                Arguments.of("key with a control character", "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"free-global\",\"key\":\"a\\u0007b\"}]}", 422, "invalid_request"),
                Arguments.of("body over 64 KiB", "{\"domain\":\"public-api\",\"pad\":\"" + "x".repeat(70_000) + "\",\"entries\":[]}", 413, "payload_too_large"),
                Arguments.of("JSON nested absurdly deep", "[".repeat(20_000) + "]".repeat(20_000), 400, "bad_request"),
                // each once allocated a billion-character string through toPlainString()
                Arguments.of("cost 1e-999999999", HUGE_SCALE, 422, "invalid_request"),
                Arguments.of("cost -1e999999999", entry("\"cost\":-1e999999999"), 422, "invalid_request"),
                Arguments.of("cost 1e999999999", entry("\"cost\":1e999999999"), 422, "invalid_request"),
                Arguments.of("cost 1e-999999999 as a string", entry("\"cost\":\"1e-999999999\""), 400, "bad_request"),
                Arguments.of("cost beyond BigDecimal's scale", entry("\"cost\":1e-2147483648"), 400, "bad_request"),
                // strict JSON: each field of its own JSON type, no unknown or repeated field; nothing is coerced or guessed at
                Arguments.of("cost a numeric string", entry("\"cost\":\"5\""), 400, "bad_request"),
                Arguments.of("cost true", entry("\"cost\":true"), 400, "bad_request"),
                Arguments.of("unknown field in an entry", entry("\"costs\":10"), 400, "bad_request"),
                Arguments.of("unknown top-level field", "{\"domain\":\"public-api\",\"dry_run\":true,\"entries\":[{\"rule\":\"free-global\",\"key\":\"k\"}]}", 400, "bad_request"),
                Arguments.of("duplicate key", entry("\"cost\":1,\"cost\":2"), 400, "bad_request"),
                Arguments.of("duplicate domain", "{\"domain\":\"public-api\",\"domain\":\"auth\",\"entries\":[{\"rule\":\"free-global\",\"key\":\"k\"}]}", 400, "bad_request"),
                Arguments.of("domain a number", "{\"domain\":7,\"entries\":[{\"rule\":\"free-global\",\"key\":\"k\"}]}", 400, "bad_request"),
                Arguments.of("key a number", "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"free-global\",\"key\":12}]}", 400, "bad_request"),
                Arguments.of("key a boolean", "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"free-global\",\"key\":false}]}", 400, "bad_request"),
                Arguments.of("trailing garbage", entry("\"cost\":1") + " {}", 400, "bad_request"),
                Arguments.of("NaN", entry("\"cost\":NaN"), 400, "bad_request"),
                Arguments.of("a 2,000-digit cost", entry("\"cost\":1" + "0".repeat(2_000)), 400, "bad_request"),
                Arguments.of("an entry that is null", "{\"domain\":\"public-api\",\"entries\":[null]}", 422, "invalid_request"),
                Arguments.of("a lone surrogate in a key", "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"free-global\",\"key\":\"a\\ud800\"}]}", 422, "invalid_request"));
    }

    /** The body of issue 11's third reproduction ("90 bytes"; 88 as written here). */
    static final String HUGE_SCALE = "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"free-global\",\"key\":\"k\",\"cost\":1e-999999999}]}";

    private static String entry(String cost) {
        return "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"free-global\",\"key\":\"k\"," + cost + "}]}";
    }

    @ParameterizedTest(name = "{0} -> {2} {3}")
    @MethodSource("badRequests")
    void refusesBadInputWithProblemDetails(String name, String body, int status, String code) {
        check(body).expectStatus().isEqualTo(status)
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
                .expectBody()
                .jsonPath("$.code").isEqualTo(code)
                .jsonPath("$.status").isEqualTo(status);
    }

    @Test
    void namesTheFieldOfEachProblem() {
        check("{\"domain\":\"\",\"entries\":[{\"rule\":\"free-global\",\"key\":\"\",\"cost\":-1}]}")
                .expectStatus().isEqualTo(422)
                .expectBody()
                .jsonPath("$.errors[0].field").isEqualTo("domain")
                .jsonPath("$.errors[1].field").isEqualTo("entries[0].key")
                .jsonPath("$.errors[2].field").isEqualTo("entries[0].cost");
    }

    @Test
    void entriesWhoseCostsAddUpPastMaxCostAreNamedTogether() {
        String key = "acct_" + UUID.randomUUID();
        check("{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"growth-global\",\"key\":\"" + key + "\",\"cost\":6},"
                + "{\"rule\":\"labels-route\",\"key\":\"" + key + "\"},{\"rule\":\"growth-global\",\"key\":\"" + key + "\",\"cost\":6}]}")
                .expectStatus().isEqualTo(422)
                .expectBody()
                .jsonPath("$.code").isEqualTo("invalid_request")
                .jsonPath("$.detail").value(detail -> assertThat((String) detail).startsWith("entries[2].cost: adds up").contains("to 12"))
                .jsonPath("$.errors.length()").isEqualTo(1)
                .jsonPath("$.errors[0].field").isEqualTo("entries[2].cost")
                .jsonPath("$.errors[0].entries[0]").isEqualTo(0)
                .jsonPath("$.errors[0].entries[1]").isEqualTo(2);
    }

    /**
     * Answered at once, in a small body that does not quote the number (formatting one once built a billion
     * characters); the service still answers after.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"1e-999999999", "-1e999999999", "1e999999999", "\"1e-999999999\"", "-1e-999999999", "1e2147483647"})
    void anAbsurdCostIsRefusedQuicklyAndNotEchoed(String cost) {
        String body = entry("\"cost\":" + cost);
        long started = System.nanoTime();

        byte[] answer = check(body).expectStatus().value(status -> assertThat(status).isIn(400, 422))
                .expectBody()
                .jsonPath("$.code").value(code -> assertThat(code).isIn("bad_request", "invalid_request"))
                .jsonPath("$.errors[0].field").isEqualTo("entries[0].cost")
                .returnResult().getResponseBody();

        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
        assertThat(answer).hasSizeLessThan(1_000);
        assertThat(new String(answer, StandardCharsets.UTF_8)).doesNotContain("999999999").doesNotContain("2147483647");
        check("{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"free-global\",\"key\":\"after_" + UUID.randomUUID() + "\"}]}")
                .expectStatus().isOk();
    }

    @Test
    void theNinetyByteBodyOfIssueElevenSaysWhatToSend() {
        check(HUGE_SCALE).expectStatus().isEqualTo(422)
                .expectBody()
                .jsonPath("$.errors[0].field").isEqualTo("entries[0].cost")
                .jsonPath("$.errors[0].message").isEqualTo("must be an integer between 0 (look without spending) and the rule's max_cost");
    }

    static Stream<Arguments> unreadableFields() {
        return Stream.of(
                Arguments.of(entry("\"costs\":10"), "entries[0].costs", "is not a field of this request"),
                Arguments.of(entry("\"cost\":\"5\""), "entries[0].cost", "must be a number"),
                Arguments.of(entry("\"cost\":1.0,\"cost\":2"), "entries[0].cost", "appears more than once in the same object"),
                Arguments.of("{\"domain\":[\"public-api\"],\"entries\":[]}", "domain", "must be a string"),
                Arguments.of("{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"free-global\",\"key\":\"k\"},{\"rule\":7,\"key\":\"k\"}]}",
                        "entries[1].rule", "must be a string"),
                Arguments.of("{\"domain\":\"public-api\",\"entries\":{}}", "entries", "must be an array"),
                Arguments.of("{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"free-global\",\"key\":\"k\"}],\"domain\":\"x\"}",
                        "domain", "appears more than once in the same object"),
                Arguments.of("{\"" + "n".repeat(1_000) + "\":1}", "n".repeat(64) + "...", "is not a field of this request"));
    }

    @ParameterizedTest(name = "{1}: {2}")
    @MethodSource("unreadableFields")
    void aBodyThatCannotBeReadNamesTheField(String body, String field, String message) {
        check(body).expectStatus().isEqualTo(400)
                .expectBody()
                .jsonPath("$.code").isEqualTo("bad_request")
                .jsonPath("$.errors[0].field").isEqualTo(field)
                .jsonPath("$.errors[0].message").isEqualTo(message)
                .jsonPath("$.detail").value(detail -> assertThat((String) detail).contains(field));
    }

    @Test
    void aFractionalCostIsStillTheValidatorsToRefuse() {
        // the cost is a BigDecimal on purpose, so 1.5 reaches the validator's message rather than a type error
        check(entry("\"cost\":1.5")).expectStatus().isEqualTo(422)
                .expectBody().jsonPath("$.errors[0].field").isEqualTo("entries[0].cost");
    }

    @Test
    void otherMediaTypesMethodsAndPathsGetProblemDetailsToo() {
        http.post().uri("/v1/ratelimit:check").contentType(MediaType.TEXT_PLAIN).bodyValue("hi")
                .exchange().expectStatus().isEqualTo(415).expectBody().jsonPath("$.code").isEqualTo("unsupported_media_type");
        http.get().uri("/v1/ratelimit:check")
                .exchange().expectStatus().isEqualTo(405).expectBody().jsonPath("$.code").isEqualTo("method_not_allowed");
        http.get().uri("/v1/nothing-here")
                .exchange().expectStatus().isEqualTo(404).expectBody().jsonPath("$.code").isEqualTo("not_found");
    }

    /**
     * The fuzzer saw the request after such an error sit unread on its keep-alive connection (Reactor
     * Netty 1.3.6; see RequestBodies). The body is now read to its end before the answer, and the same
     * connection answers the next request, round after round.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"PUT /v1/nothing|application/json", "POST /v1/ratelimit:check|text/plain", "PUT /v1/ratelimit:check|application/json",
            "POST /v1/ratelimit:check|application/xml", "DELETE /v1/ratelimit:check|application/json"})
    void aConnectionStaysUsableAfterAnErrorAnsweredWithoutReadingTheBody(String call) throws IOException {
        String[] parts = call.split("[ |]");
        String body = "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"free-global\",\"key\":\"keep_" + UUID.randomUUID() + "\"}]}";
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(2_000);
            for (int round = 0; round < 50; round++) {
                String refused = exchange(socket, request(parts[0], parts[1], parts[2], body));
                String checked = exchange(socket, request("POST", "/v1/ratelimit:check", "application/json", body));

                assertThat(refused).startsWith("HTTP/1.1 4").contains("\"code\":");
                assertThat(checked).as("round %d", round).startsWith("HTTP/1.1 200");
            }
        }
    }

    /** A body past the check API's 64 KiB is not read to its end: the answer closes the connection instead. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"PUT /v1/nothing|application/json", "POST /v1/ratelimit:check|application/json"})
    void aBodyTooLargeToReadIsAnsweredAndTheConnectionClosed(String call) throws IOException {
        String[] parts = call.split("[ |]");
        String body = "{\"domain\":\"public-api\",\"pad\":\"" + "x".repeat(100_000) + "\",\"entries\":[]}";
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(5_000);

            String answer = exchange(socket, request(parts[0], parts[1], parts[2], body));

            assertThat(answer).startsWith("HTTP/1.1 4").containsIgnoringCase("connection: close").contains("\"code\":");
            assertThat(socket.getInputStream().read()).as("the server closed the connection").isEqualTo(-1);
        }
    }

    /**
     * The fuzzer's "header parser received no bytes": a client still writing a body the service will not read
     * (Java's HttpClient writes and reads at once) lost the connection, 413 and all, to a reset. The service
     * now half-closes: the client finishes writing, then reads the answer and the end of the stream.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"PUT /v1/nothing|application/json", "POST /v1/ratelimit:check|application/json"})
    void aClientStillSendingABodyTooLargeToReadFinishesAndGetsItsAnswer(String call) throws IOException {
        String[] parts = call.split("[ |]");
        int length = 900_000;
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(5_000);
            OutputStream out = socket.getOutputStream();
            out.write((parts[0] + " " + parts[1] + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: " + parts[2] + "\r\nContent-Length: "
                    + length + "\r\n\r\n{\"domain\":\"").getBytes(StandardCharsets.US_ASCII));
            byte[] piece = "x".repeat(10_000).getBytes(StandardCharsets.US_ASCII);
            int sent = 11;
            for (int i = 0; i < 10; i++, sent += piece.length) {
                out.write(piece);
            }
            String answer = readAnswer(socket.getInputStream());
            // the service answered before reading it all, and closed its side; the client writes on regardless
            while (sent < length) {
                int n = Math.min(piece.length, length - sent);
                out.write(piece, 0, n);
                sent += n;
            }
            out.flush();

            assertThat(answer).startsWith("HTTP/1.1 4").containsIgnoringCase("connection: close").contains("\"code\":");
            assertThat(socket.getInputStream().read()).as("the end of the stream, not a reset").isEqualTo(-1);
        }
    }

    /**
     * A pipelined request answered at once, before its trailing content was delivered, left
     * Reactor Netty 1.3.6 reading nothing more on that connection (see KeepAliveReads). The follow-up on the same
     * connection must be answered, round after round, however the pipelined pair was served.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"chunked check, OPTIONS", "check, OPTIONS", "health, OPTIONS", "check, OPTIONS, OPTIONS",
            "health, health", "check, health"})
    void aConnectionStaysReadableAfterPipelinedRequests(String calls) throws IOException {
        List<String> names = List.of(calls.split(", "));
        for (int round = 0; round < 20; round++) {
            try (Socket socket = new Socket("127.0.0.1", port)) {
                socket.setSoTimeout(5_000);
                OutputStream out = socket.getOutputStream();
                // one write: the server reads them all at once, while the first is still being answered
                out.write(names.stream().map(CheckApiIT::pipelined).collect(Collectors.joining()).getBytes(StandardCharsets.UTF_8));
                out.flush();
                for (String name : names) {
                    assertThat(RawHttp.read(socket.getInputStream()).status()).as("round %d, %s", round, name).isLessThan(300);
                }

                String health;
                try {
                    health = exchange(socket, "GET /actuator/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
                } catch (SocketTimeoutException unread) {
                    throw new AssertionError("round " + round + ": the request after the pipelined ones got no answer in 5 s", unread);
                }

                assertThat(health).as("round %d: the request after the pipelined ones", round).startsWith("HTTP/1.1 200");
            }
        }
    }

    private static String pipelined(String name) {
        String body = "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"free-global\",\"key\":\"pipe_" + UUID.randomUUID() + "\"}]}";
        return switch (name) {
            // chunked: WebFlux's, not the check route's
            case "chunked check" -> "POST /v1/ratelimit:check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n" + Integer.toHexString(body.length()) + "\r\n" + body + "\r\n0\r\n\r\n";
            case "check" -> request("POST", "/v1/ratelimit:check", "application/json", body);
            case "OPTIONS" -> "OPTIONS /v1/ratelimit:check HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
            case "health" -> "GET /actuator/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
            default -> throw new IllegalArgumentException(name);
        };
    }

    private static String request(String method, String path, String type, String body) {
        return method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: " + type + "\r\nContent-Length: "
                + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body;
    }

    /** Writes one request and reads one answer (headers and a Content-Length body) from the same connection. */
    private static String exchange(Socket socket, String request) throws IOException {
        socket.getOutputStream().write(request.getBytes(StandardCharsets.UTF_8));
        socket.getOutputStream().flush();
        return readAnswer(socket.getInputStream());
    }

    /** One answer, its head and body as they came. */
    private static String readAnswer(InputStream in) throws IOException {
        RawHttp.Answer answer = RawHttp.read(in);
        return answer.head() + answer.body();
    }

    @Test
    void exposesCheckMetricsForPrometheus() {
        check("{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"free-global\",\"key\":\"metrics_" + UUID.randomUUID() + "\"}]}")
                .expectStatus().isOk();
        // a scrape is larger than the 64 KiB a check body may take (spring.http.codecs, which this client shares)
        http.mutate().codecs(codecs -> codecs.defaultCodecs().maxInMemorySize(4 << 20)).build()
                .get().uri("/actuator/prometheus").exchange()
                .expectStatus().isOk()
                .expectBody(String.class)
                .value(containsString("tollgate_checks_seconds_count{"))
                .value(containsString("tollgate_decisions_total{"))
                .value(containsString("tollgate_store_calls_seconds_count{"));
        http.get().uri("/actuator/health").exchange().expectStatus().isOk();
    }

    private WebTestClient.ResponseSpec check(String body) {
        return http.post().uri("/v1/ratelimit:check")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .exchange();
    }
}
