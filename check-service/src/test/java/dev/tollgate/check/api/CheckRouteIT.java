package dev.tollgate.check.api;

import dev.tollgate.check.SharedClusterPod;
import dev.tollgate.check.metrics.CheckMeters;
import dev.tollgate.testsupport.http.RawHttp;
import dev.tollgate.testsupport.http.RawHttp.Answer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The check's own route ({@link CheckRoute}) answers every body exactly as WebFlux's controller does: the
 * same status, media type and JSON, for the plain check and for each kind of bad input. The two are told
 * apart on the wire: the same body sent with a Content-Length takes the route, sent chunked it falls
 * through to WebFlux; Reactor Netty writes the route's header names in lower case, Spring capitalises them.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class CheckRouteIT {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        SharedClusterPod.register(registry, "src/test/resources/rules-test.yml");
    }

    @LocalServerPort
    int port;

    @Autowired
    MeterRegistry meters;

    @ParameterizedTest
    @ValueSource(strings = {
            // the plain check, on a rule this pod does not know: the same answer every time
            "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"no-such-rule\",\"key\":\"k\",\"cost\":1}]}",
            "{\"domain\":",
            "null",
            "[]",
            "\"check\"",
            "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"growth-global\",\"key\":\"k\",\"cost\":-5}]}",
            "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"growth-global\",\"key\":\"k\",\"cost\":1.5}]}",
            "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"growth-global\",\"key\":\"k\",\"cost\":\"1\"}]}",
            "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"growth-global\",\"key\":\"k\",\"costs\":1}]}",
            "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"growth-global\",\"key\":\"k\\u0000\",\"cost\":1}]}",
            "{\"domain\":\"public-api\",\"entries\":[]}",
            "{\"entries\":[{\"rule\":\"growth-global\",\"key\":\"k\"}]}",
            "{\"domain\":\"public-api\",\"domain\":\"auth\",\"entries\":[]}",
            "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"growth-global\",\"key\":\"k\"}]} {}",
            "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"growth-global\",\"key\":\"k\",\"cost\":1e999999}]}",
            "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]"
                    + "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"})
    void answersAsWebFluxDoes(String body) throws IOException {
        Answer route = post(body, false);
        Answer webflux = post(body, true);

        assertThat(tookTheRoute(route)).as("sent with a length, the check takes the route: %s", route.head()).isTrue();
        assertThat(tookTheRoute(webflux)).as("sent chunked, the check is WebFlux's: %s", webflux.head()).isFalse();
        assertThat(route.status()).isEqualTo(webflux.status());
        assertThat(route.header("content-type")).isNotNull().isEqualTo(webflux.header("content-type"));
        assertThat(JSON.readTree(route.body())).isEqualTo(JSON.readTree(webflux.body()));
        assertThat(route.status()).isLessThan(500);
    }

    @Test
    void leavesTheRestToWebFlux() throws IOException {
        String check = "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"growth-global\",\"key\":\"" + UUID.randomUUID() + "\"}]}";

        assertThat(send("POST /v1/ratelimit:check HTTP/1.1\r\nHost: t\r\nContent-Type: text/plain\r\nContent-Length: "
                + check.length() + "\r\n\r\n" + check))
                .satisfies(answer -> assertThat(answer.status()).isEqualTo(415))
                .satisfies(answer -> assertThat(tookTheRoute(answer)).isFalse());
        assertThat(send("POST /v1/ratelimit:check HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nAccept: text/plain\r\n"
                + "Content-Length: " + check.length() + "\r\n\r\n" + check))
                .satisfies(answer -> assertThat(answer.status()).isEqualTo(406))
                .satisfies(answer -> assertThat(tookTheRoute(answer)).isFalse());
        assertThat(send("PUT /v1/ratelimit:check HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: "
                + check.length() + "\r\n\r\n" + check))
                .satisfies(answer -> assertThat(answer.status()).isEqualTo(405))
                .satisfies(answer -> assertThat(tookTheRoute(answer)).isFalse());
        assertThat(send("POST /v1/ratelimit:check HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 0\r\n\r\n"))
                .satisfies(answer -> assertThat(answer.status()).isEqualTo(400))
                .satisfies(answer -> assertThat(tookTheRoute(answer)).isFalse());
    }

    @Test
    void aCheckWithAQueryOrACharsetTakesTheRoute() throws IOException {
        String check = "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"growth-global\",\"key\":\"" + UUID.randomUUID() + "\"}]}";

        Answer answer = send("POST /v1/ratelimit:check?trace=1 HTTP/1.1\r\nHost: t\r\nContent-Type: application/json; charset=UTF-8\r\n"
                + "Accept: application/json\r\nContent-Length: " + check.length() + "\r\n\r\n" + check);

        assertThat(answer.status()).isEqualTo(200);
        assertThat(tookTheRoute(answer)).isTrue();
        assertThat(answer.header("ratelimit-policy")).isEqualTo("\"growth-global\";q=100;w=1");
        assertThat(JSON.readTree(answer.body()).at("/entries/0/remaining").asInt()).isEqualTo(199);
    }

    @Test
    void recordsItsChecksAsWebFluxDoes() throws IOException {
        String series = "http_server_requests_seconds_count\\{application=\"check-service\",error=\"none\",exception=\"none\","
                + "method=\"POST\",outcome=\"%s\",region=\"[^\"]+\",status=\"%d\",uri=\"/v1/ratelimit:check\",version=\"[^\"]+\"} (\\d+)";
        long allowedBefore = count(series.formatted("SUCCESS", 200));
        long refusedBefore = count(series.formatted("CLIENT_ERROR", 400));

        for (int i = 0; i < 3; i++) {
            assertThat(post("{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"growth-global\",\"key\":\"" + UUID.randomUUID() + "\"}]}", false))
                    .satisfies(answer -> assertThat(answer.status()).isEqualTo(200));
        }
        assertThat(post("{\"domain\":", false).status()).isEqualTo(400);

        assertThat(count(series.formatted("SUCCESS", 200))).isEqualTo(allowedBefore + 3);
        assertThat(count(series.formatted("CLIENT_ERROR", 400))).isEqualTo(refusedBefore + 1);
    }

    @Test
    void countsTheChecksItIsAnswering() throws IOException {
        Gauge inFlight = meters.get(CheckMeters.HTTP_CHECKS_IN_FLIGHT).gauge();
        double before = inFlight.value();
        byte[] check = ("{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"growth-global\",\"key\":\"" + UUID.randomUUID() + "\"}]}")
                .getBytes(StandardCharsets.UTF_8);
        String head = "POST /v1/ratelimit:check HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: " + check.length + "\r\n\r\n";

        try (Socket answered = new Socket("127.0.0.1", port); Socket abandoned = new Socket("127.0.0.1", port)) {
            // the heads and half of each body: both checks are on the route, waiting for the rest
            for (Socket socket : List.of(answered, abandoned)) {
                socket.setSoTimeout(10_000);
                socket.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
                socket.getOutputStream().write(check, 0, check.length / 2);
                socket.getOutputStream().flush();
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> inFlight.value() == before + 2);

            answered.getOutputStream().write(check, check.length / 2, check.length - check.length / 2);
            answered.getOutputStream().flush();
            assertThat(RawHttp.read(answered.getInputStream()).status()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(5)).until(() -> inFlight.value() == before + 1);
        }
        // the client gone mid-body: the check is no longer in flight either
        await().atMost(Duration.ofSeconds(5)).until(() -> inFlight.value() == before);
    }

    /** The series' count in a Prometheus scrape; 0 while it does not exist yet. */
    private long count(String series) throws IOException {
        String scrape = send("GET /actuator/prometheus HTTP/1.1\r\nHost: t\r\n\r\n").body();
        Matcher count = Pattern.compile(series).matcher(scrape);
        return count.find() ? Long.parseLong(count.group(1)) : 0;
    }

    private Answer post(String body, boolean chunked) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        String head = "POST /v1/ratelimit:check HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                + (chunked ? "Transfer-Encoding: chunked\r\n\r\n" + Integer.toHexString(bytes.length) + "\r\n" : "Content-Length: " + bytes.length + "\r\n\r\n");
        String tail = chunked ? "\r\n0\r\n\r\n" : "";
        return send(head + body + tail);
    }

    private Answer send(String request) throws IOException {
        return RawHttp.exchange(port, request);
    }

    /** Reactor Netty's header names are lower case; Spring's HttpHeaders writes Content-Type. */
    private static boolean tookTheRoute(Answer answer) {
        return answer.head().contains("\r\ncontent-type: ");
    }
}
