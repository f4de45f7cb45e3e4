package dev.tollgate.rules;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The key page's "why would a check be denied now?" panel against a tiny HTTP server standing in for a check-service
 * pod's explain (rules-service must not depend on check-service; DevStackExplainIT asks a real pod): what the console
 * sends (the reader's token, the check's body), what it shows of an answer, and every way the pod can fail it, each a
 * panel with a status that says why and never a 500 or a hang; a reader may ask, under no other spelling of the path.
 */
class KeyExplainPageIT extends ServiceTestBase {

    private static final String READER_TOKEN = "console-reader-token-5e1f0a7c9b3d";
    private static final HttpServer POD = standIn();
    private static final AtomicReference<Answer> ANSWER = new AtomicReference<>();
    private static final List<Request> ASKED = new CopyOnWriteArrayList<>();
    private static final String HTMX = "HX-Request";

    /** What the stand-in does with a request. */
    private interface Answer {
        void answer(HttpExchange exchange) throws IOException, InterruptedException;
    }

    private record Request(String path, String authorization, String body) {
    }

    @DynamicPropertySource
    static void explain(DynamicPropertyRegistry registry) {
        registry.add("tollgate.console.token-sign-in", () -> "true");
        registry.add("tollgate.console.explain.url", () -> "http://127.0.0.1:" + POD.getAddress().getPort());
        registry.add("tollgate.console.explain.reader-token", () -> READER_TOKEN);
        registry.add("tollgate.console.explain.connect-timeout", () -> "500ms");
        registry.add("tollgate.console.explain.read-timeout", () -> "1s");
    }

    private static HttpServer standIn() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/", exchange -> {
                ASKED.add(new Request(exchange.getRequestURI().getRawPath(), exchange.getRequestHeaders().getFirst("Authorization"),
                        new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
                try {
                    ANSWER.get().answer(exchange);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (IOException e) {
                    // the console gave up first (a slow answer): nothing to tell it
                } finally {
                    exchange.close();
                }
            });
            server.setExecutor(Executors.newCachedThreadPool());
            server.start();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @AfterAll
    static void stopStandIn() {
        POD.stop(0);
    }

    @BeforeEach
    void quiet() {
        ASKED.clear();
        ANSWER.set(json(200, "application/json", "{}"));
    }

    private static Answer json(int status, String type, String body) {
        return exchange -> {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", type);
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        };
    }

    private static final String DENIED = """
            {"pod":"check-7f9c","allowed":false,"entries":[
             {"index":0,"rule":"labels-route","key":"acct_7Q2","stage":"deny_cache","allowed":false,
              "why":"the pod remembers the store's deny of rl:{acct_7Q2}:labels-route; retry in 640 ms","version":3,
              "rule_in_force":{"id":"labels-route","burst":200},
              "override":{"rate_per_s":100,"burst":200,"expires_at":"2031-01-01T00:00:00Z","reason":"launch <week>"},
              "share":0.5,"limit_key":"rl:{acct_7Q2}:labels-route","shard":"6f1c0e3a",
              "level":{"remaining":0,"limit":200,"reset_ms":1500,"stored":true}},
             {"index":1,"rule":"no-such-rule","key":"acct_7Q2","stage":"unknown_rule","allowed":true,
              "why":"domain public-api has no rule no-such-rule: the entry is allowed, marked unknown_rule","share":1.0}]}""";

    @Test
    void showsThePodsAnswerEntryByEntryAndWhichPodAnsweredSendingTheReadersTokenOnly() throws Exception {
        ANSWER.set(json(200, "application/json", DENIED));
        ConsoleHttp reader = ConsoleHttp.signIn(port, "rita", TestTokens.READ);
        String page = reader.get("/console/key?key=acct_7Q2").body();
        assertThat(page).contains("Why would a check be denied now?").contains("id=\"explain-form\"").doesNotContain(READER_TOKEN)
                .doesNotContain("id=\"explain-not-set-up\"");

        HttpResponse<String> panel = reader.post(page, "/console/key/explain",
                "key=acct_7Q2&domain=public-api&rule=labels-route&rules=" + enc(" no-such-rule, labels-route ") + "&cost=2", HTMX, "true");

        assertThat(panel.statusCode()).as(panel.body()).isEqualTo(200);
        String html = panel.body().strip();
        assertThat(html).as("htmx swaps the panel alone").startsWith("<div id=\"explain-result\"").doesNotContain("<html");
        assertThat(html).contains("Pod <code>check-7f9c</code>").contains("/v1/ratelimit:explain").contains("<strong>denied</strong> now")
                .contains("are its own")
                .contains("<code>deny_cache</code>").contains("the pod remembers the store&#39;s deny of rl:{acct_7Q2}:labels-route; retry in 640 ms")
                .contains("100/s, burst 200").contains("2031-01-01T00:00:00Z").contains("launch &lt;week&gt;")
                .contains("50 %").contains("0 of 200 left, full in 2 s").contains("6f1c0e3a")
                .contains("<code>unknown_rule</code>").doesNotContain(READER_TOKEN);
        assertThat(ASKED).hasSize(1);
        Request asked = ASKED.get(0);
        assertThat(asked.path()).isEqualTo("/v1/ratelimit:explain");
        assertThat(asked.authorization()).isEqualTo("Bearer " + READER_TOKEN);
        assertThat(asked.body()).isEqualTo("{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"labels-route\",\"key\":\"acct_7Q2\",\"cost\":2},"
                + "{\"rule\":\"no-such-rule\",\"key\":\"acct_7Q2\",\"cost\":2}]}");

        // without scripts: the key's page with the panel in it
        HttpResponse<String> whole = reader.post(page, "/console/key/explain", "key=acct_7Q2&domain=public-api&rule=labels-route&cost=1");
        assertThat(whole.statusCode()).isEqualTo(200);
        assertThat(whole.body()).contains("<h1>Key <code>acct_7Q2</code></h1>").contains("<code>deny_cache</code>");
    }

    @Test
    void aSlowPodIsA503PanelWithinTheTimeoutsNeverAHang() throws Exception {
        ANSWER.set(exchange -> Thread.sleep(5_000));
        ConsoleHttp reader = ConsoleHttp.signIn(port, "rita", TestTokens.READ);
        String page = reader.get("/console/key?key=acct_slow").body();

        long started = System.nanoTime();
        HttpResponse<String> panel = reader.post(page, "/console/key/explain", "key=acct_slow&domain=public-api&rule=labels-route", HTMX, "true");
        long tookMs = (System.nanoTime() - started) / 1_000_000;

        assertThat(panel.statusCode()).isEqualTo(503);
        assertThat(panel.body()).contains("The pod cannot be asked right now").contains("did not answer within 1500 ms")
                .doesNotContain(READER_TOKEN);
        assertThat(tookMs).as("connect 500 ms + read 1 s, and a little").isLessThan(4_000);
    }

    @Test
    void everyOtherFailureOfThePodIsAPanelThatSaysWhyWithoutTheToken() throws Exception {
        ConsoleHttp reader = ConsoleHttp.signIn(port, "rita", TestTokens.READ);
        String page = reader.get("/console/key?key=acct_fail").body();
        String form = "key=acct_fail&domain=public-api&rule=labels-route";
        record Case(String name, Answer answer, int status, String says) {
        }
        List<Case> cases = List.of(
                new Case("token not a reader's", json(401, "application/problem+json",
                        "{\"status\":401,\"code\":\"unauthorized\",\"detail\":\"This needs a reader's token\"}"), 502, "answered 401: tollgate.console.explain.reader-token is not among"),
                new Case("no reader tokens on the pod", json(403, "application/problem+json",
                        "{\"status\":403,\"code\":\"forbidden\",\"detail\":\"This pod shows nothing to readers.\"}"), 502, "answered 403: This pod shows nothing to readers."),
                new Case("the pod's 422", json(422, "application/problem+json", "{\"status\":422,\"code\":\"invalid_request\","
                        + "\"detail\":\"entries[0].cost must be at most the rule's max_cost\",\"errors\":[{\"field\":\"entries[0].cost\",\"message\":\"too <big>\"}]}"),
                        422, "entries[0].cost: too &lt;big&gt;"),
                new Case("the pod's 400", json(400, "application/problem+json", "{\"status\":400,\"code\":\"bad_request\",\"detail\":\"unreadable\"}"),
                        400, "unreadable"),
                new Case("no rules yet", json(503, "application/problem+json", "{\"status\":503,\"code\":\"rules_unavailable\",\"detail\":\"no rules yet\"}"),
                        503, "no rules yet"),
                new Case("not JSON", json(200, "text/html", "<html>a login page</html>"), 502, "The pod&#39;s answer cannot be read"),
                new Case("JSON of something else", json(200, "application/json", "[1,2,3]"), 502, "HTTP 200 without a JSON object of entries"),
                new Case("no explain there", json(404, "text/plain", "not found"), 502, "HTTP 404"),
                new Case("a 500", json(500, "text/plain", "boom"), 502, "HTTP 500"),
                new Case("an endless answer", json(200, "application/json", "{\"entries\":[" + "{},".repeat(200_000) + "{}]}"), 502,
                        "larger than 256 kB"),
                new Case("a cut connection", exchange -> { /* closed with no answer at all */ }, 503, "The pod cannot be asked right now"));
        List<String> wrong = new ArrayList<>();
        for (Case c : cases) {
            ANSWER.set(c.answer());
            HttpResponse<String> panel = reader.post(page, "/console/key/explain", form, HTMX, "true");
            if (panel.statusCode() != c.status() || !panel.body().contains(c.says()) || panel.body().contains(READER_TOKEN)
                    || !panel.body().strip().startsWith("<div id=\"explain-result\"")) {
                wrong.add(c.name() + " → " + panel.statusCode() + " " + panel.body().strip());
            }
        }
        assertThat(wrong).isEmpty();

        // the whole page, without scripts, for a failure too
        ANSWER.set(json(401, "application/problem+json", "{}"));
        HttpResponse<String> whole = reader.post(page, "/console/key/explain", form);
        assertThat(whole.statusCode()).isEqualTo(502);
        assertThat(whole.body()).contains("<h1>Key <code>acct_fail</code></h1>").contains("refused the console&#39;s token");
    }

    @Test
    void valuesNoCheckCouldCarryAreA400AndNeverSent() throws Exception {
        ConsoleHttp reader = ConsoleHttp.signIn(port, "rita", TestTokens.READ);
        String page = reader.get("/console/key?key=acct_odd").body();
        List<String> forms = List.of(
                "key=acct_odd&domain=public-api&rules=" + "r".repeat(60_000),
                "key=acct_odd&domain=public-api&rules=" + enc("a\u0000b"),
                "key=acct_odd&domain=public-api&rules=" + enc("x".repeat(65)),
                "key=acct_odd&domain=public-api&rules=" + enc(String.join(",", java.util.stream.IntStream.range(0, 17).mapToObj(i -> "r" + i).toList())),
                "key=acct_odd&domain=" + enc("public\napi") + "&rule=labels-route",
                "key=acct_odd&domain=" + "d".repeat(129) + "&rule=labels-route",
                "key=acct_odd&domain=public-api",
                "key=acct_odd&domain=public-api&rule=labels-route&cost=-1",
                "key=acct_odd&domain=public-api&rule=labels-route&cost=" + "9".repeat(40),
                "key=acct_odd&domain=public-api&rule=labels-route&cost=abc",
                "key=" + "k".repeat(300) + "&domain=public-api&rule=labels-route",
                "key=" + enc("acct\u0007odd") + "&domain=public-api&rule=labels-route",
                "domain=public-api&rule=labels-route");
        List<String> wrong = new ArrayList<>();
        for (String form : forms) {
            for (boolean htmx : new boolean[] {true, false}) {
                HttpResponse<String> answer = htmx ? reader.post(page, "/console/key/explain", form, HTMX, "true")
                        : reader.post(page, "/console/key/explain", form);
                if (answer.statusCode() != 400 || answer.body().contains("Exception") || answer.body().contains("\u0000")) {
                    wrong.add((htmx ? "htmx " : "") + form.substring(0, Math.min(80, form.length())) + " → " + answer.statusCode());
                }
            }
        }
        assertThat(wrong).isEmpty();
        assertThat(ASKED).as("nothing sent to the pod").isEmpty();
        HttpResponse<String> huge = reader.post(page, "/console/key/explain", "key=acct_odd&domain=public-api&rule=labels-route&rules="
                + "r".repeat(3_000_000), HTMX, "true");
        assertThat(huge.statusCode()).as("a body past the form's limit").isBetween(400, 499);
        assertThat(ASKED).isEmpty();
    }

    @Test
    void aReaderMayAskButNoOtherSpellingOfThePathLetsThemPost() throws Exception {
        ANSWER.set(json(200, "application/json", DENIED));
        ConsoleHttp reader = ConsoleHttp.signIn(port, "rita", TestTokens.READ);
        String page = reader.get("/console/key?key=acct_7Q2").body();
        String change = "key=acct_7Q2&domain=public-api&rule=labels-route&ratePerS=100&burst=200&expiresAt=2031-01-01T00:00&reason=why";

        List<String> spellings = List.of("/console/key/explain;x", "/console/key%2Fexplain", "/console/key/explain%2F..%2Foverrides",
                "/console/key/explain/../overrides", "/console/key/explain/..;/overrides", "/console/KEY/EXPLAIN", "/console/key/EXPLAIN",
                "/console/Key/explain", "/console/key/explain/", "/console/key/explain/x", "/console/key//explain", "/console//key/explain",
                "/console/key/./explain", "/console/key/overrides;explain", "/console/key/overrides",
                "/console/key/overrides/end", "/console/key/explain/../overrides/end", "/console/%6bey/overrides");
        List<String> let = new ArrayList<>();
        for (String spelling : spellings) {
            HttpResponse<String> refused = reader.post(page, spelling, change, HTMX, "true");
            System.out.printf("reader POST %s → %d%n", spelling, refused.statusCode());
            if (refused.statusCode() != 403 && refused.statusCode() != 400) {
                let.add(spelling + " → " + refused.statusCode());
            }
        }
        assertThat(let).as("every other spelling refused (403, or 400 from the firewall)").isEmpty();
        assertThat(ASKED).as("none reached the pod").isEmpty();
        HttpResponse<String> denied = reader.post(page, "/console/key/overrides", change);
        assertThat(denied.body()).contains("id=\"denied\"").contains("ratelimit:admin");

        HttpResponse<String> asked = reader.post(page, "/console/key/explain", "key=acct_7Q2&domain=public-api&rule=labels-route", HTMX, "true");
        assertThat(asked.statusCode()).isEqualTo(200);
        assertThat(ASKED).hasSize(1);
        // %65 is 'e': the router reads it as explain itself, and so does the authorization, which is decided on the same match
        assertThat(reader.post(page, "/console/key/%65xplain", "key=acct_7Q2&domain=public-api&rule=labels-route", HTMX, "true").statusCode())
                .isEqualTo(200);
        assertThat(ASKED).hasSize(2);
    }

    private static String enc(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
