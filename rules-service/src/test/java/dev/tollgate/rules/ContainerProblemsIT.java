package dev.tollgate.rules;

import dev.tollgate.testsupport.http.RawHttp;
import dev.tollgate.testsupport.http.RawHttp.Answer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What Tomcat answers on its own, sent on a raw socket because no HTTP client sends it: a request its parser
 * refuses before any of the service's code runs, and an error forwarded to {@code /error}. Each is problem
 * details with a code, not Tomcat's HTML page or Spring Boot's default error body, and the service goes on
 * serving.
 */
class ContainerProblemsIT extends ServiceTestBase {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "a length that is no number     | Content-Length: abc\\r\\n\\r\\n{}",
            "a negative length              | Content-Length: -5\\r\\n\\r\\n{}",
            "two lengths                    | Content-Length: 2\\r\\nContent-Length: 3\\r\\n\\r\\n{}",
            "a space in a header name       | Bad Name: 1\\r\\nContent-Length: 2\\r\\n\\r\\n{}"})
    void unreadableHttpIsABadRequestWithACode(String what, String rest) throws IOException {
        Answer answer = exchange(put(rest.strip().replace("\\r\\n", "\r\n")));

        assertProblem(answer, 400, "bad_request");
    }

    @Test
    void aRequestTargetWithForbiddenCharactersIsABadRequest() throws IOException {
        assertProblem(exchange("GET /v1/rules/a{b} HTTP/1.1\r\nHost: t\r\n\r\n"), 400, "bad_request");
    }

    @Test
    void aRequestLineOverTheLimitIsABadRequest() throws IOException {
        assertProblem(exchange("GET /v1/rules?pad=" + "a".repeat(10_000) + " HTTP/1.1\r\nHost: t\r\n\r\n"), 400, "bad_request");
    }

    @Test
    void headersOverTheLimitAreABadRequest() throws IOException {
        assertProblem(exchange("GET /v1/rules HTTP/1.1\r\nHost: t\r\nX-Pad: " + "a".repeat(20_000) + "\r\n\r\n"), 400, "bad_request");
    }

    @Test
    void anUnknownHttpVersionIsNotSupported() throws IOException {
        assertProblem(exchange("GET /v1/rules HTTP/9.9\r\nHost: t\r\n\r\n"), 505, "http_version_not_supported");
    }

    @Test
    void aChunkedBodyWhoseFramingBreaksIsAProblemFromTheErrorPage() throws IOException {
        Answer answer = exchange(put("Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"));

        assertProblem(answer, 400, "bad_request");
        assertThat(JSON.readTree(answer.body()).get("instance").asString()).startsWith("/v1/rules/");
    }

    @Test
    void theServiceGoesOnServing() throws IOException {
        exchange(put("Content-Length: abc\r\n\r\n{}"));

        assertThat(api.get("/v1/rules").status).isEqualTo(200);
    }

    private String put(String rest) {
        return "PUT /v1/rules/" + uniqueId("raw") + " HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer " + TestTokens.all("alice")
                + "\r\nContent-Type: application/json\r\n" + rest;
    }

    private static void assertProblem(Answer answer, int status, String code) {
        assertThat(answer.status()).as(answer.head()).isEqualTo(status);
        assertThat(answer.header("content-type")).as(answer.head()).startsWith("application/problem+json");
        JsonNode problem = JSON.readTree(answer.body());
        assertThat(problem.get("status").asInt()).isEqualTo(status);
        assertThat(problem.get("code").asString()).isEqualTo(code);
        assertThat(problem.get("title").asString()).isNotBlank();
        assertThat(problem.get("detail").asString()).isNotBlank();
    }

    private Answer exchange(String request) throws IOException {
        return RawHttp.exchange(port, request);
    }
}
