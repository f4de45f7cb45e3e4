package dev.tollgate.check.api;

import dev.tollgate.check.CheckServiceApplication;
import dev.tollgate.testsupport.redis.RedisCluster;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.GenerationMode;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.AfterProperty;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.lifecycle.BeforeProperty;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Issue 11: hostile input gets a clear 4xx and costs nothing. A property-based fuzzer of
 * {@code POST /v1/ratelimit:check} against a real check-service on a real port, over the shared
 * Redis Cluster: wrong types, huge exponents, deep nesting, lone surrogates, duplicate keys, repeated
 * entries, huge arrays, garbage bytes, wrong content types and methods. Every case must be answered
 * within {@link #TIMEOUT} (or on a second try, a few times a run: {@link #secondChance}), never with a 5xx, every 4xx as a problem with a {@code code}, in a body
 * that never grows with what was sent; the heap after the run stays within {@link #HEAP_GROWTH}.
 *
 * <p>jqwik runs as its own JUnit Platform engine and has no Spring extension, so the service is started
 * here with {@link SpringApplicationBuilder} on port 0, as {@code @SpringBootTest(RANDOM_PORT)} would.
 */
class CheckApiFuzzIT {

    static final int TRIES = 6_000;
    static final Duration TIMEOUT = Duration.ofSeconds(2);
    /** Late answers a run tolerates, each answered on a second try: CPU starvation, not a hang (see {@link #secondChance}). */
    static final int MAX_STALLS = 3;
    static final long HEAP_GROWTH = 64L << 20;
    /** The largest answer a check can need: 64 entries' results, or 64 entries' problems. */
    static final int MAX_ANSWER_BYTES = 32 * 1024;

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final List<String> RULES = List.of("free-global", "growth-global", "labels-route", "login-ip", "free-daily", "no-such-rule");

    private static ConfigurableApplicationContext service;
    private static int port;
    private static HttpClient http;
    private static FuzzFigures figures;

    @BeforeContainer
    static void startService() {
        service = new SpringApplicationBuilder(CheckServiceApplication.class)
                // arguments, not default properties: those would lose to application.yml
                .run(
                        "--server.port=0",
                        "--tollgate.redis.seeds=" + String.join(",", RedisCluster.shared().seedUris()),
                        "--tollgate.redis.command-timeout=1s",
                        "--tollgate.rules.file=src/test/resources/rules-test.yml",
                        "--tollgate.rules.service-url=");
        port = ((WebServerApplicationContext) service).getWebServer().getPort();
        http = FuzzCall.client();
    }

    @AfterContainer
    static void stopService() {
        if (service != null) {
            service.close();
        }
    }

    @BeforeProperty
    void warmUpAndMeasure() throws Exception {
        figures = new FuzzFigures("check-service fuzz");
        // the rules file is loaded and the store answers: cases reach the engine, not only the parser
        JsonNode known = JSON.readTree(FuzzCall.send(http, FuzzCall.json("setup",
                "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"free-global\",\"key\":\"setup\"}]}").toRequest(port, TIMEOUT)).body());
        assertThat(known.path("entries").path(0).has("unknown_rule")).as(known.toString()).isFalse();
        assertThat(known.path("entries").path(0).has("fallback")).as(known.toString()).isFalse();
        // class loading, JIT and the first store connections are not what the heap bound is about
        for (int i = 0; i < 200; i++) {
            FuzzCall.send(http, FuzzCall.json("warm-up", "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"free-global\",\"key\":\"warm" + i
                    + "\"}]}").toRequest(port, TIMEOUT));
            FuzzCall.send(http, FuzzCall.json("warm-up", "{\"domain\":1}").toRequest(port, TIMEOUT));
        }
        figures.start();
    }

    private static HttpResponse<String> send(FuzzCall call) throws Exception {
        return FuzzCall.send(http, call.toRequest(port, TIMEOUT));
    }

    @AfterProperty
    void heapStaysFlat() {
        long after = FuzzFigures.usedHeapAfterGc();
        String report = figures.finish(after);
        System.out.println(report);
        if (figures.failed()) {
            return; // the property's own failure says what went wrong; the heap after a failed run says nothing
        }
        assertThat(figures.cases()).as(report).isGreaterThanOrEqualTo(TRIES);
        assertThat(after).as("used heap after GC grew by more than %d MB: %s", HEAP_GROWTH >> 20, report)
                .isLessThanOrEqualTo(figures.heapBefore() + HEAP_GROWTH);
    }

    @Property(tries = TRIES, generation = GenerationMode.RANDOMIZED, shrinking = ShrinkingMode.BOUNDED)
    void everyCaseIsAnsweredInTimeWithoutA5xx(@ForAll("calls") FuzzCall call) throws Exception {
        try {
            answersInTimeWithoutA5xx(call);
        } catch (Exception | AssertionError e) {
            figures.fail();
            throw e;
        }
    }

    private void answersInTimeWithoutA5xx(FuzzCall call) throws Exception {
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
        assertThat(body.getBytes(StandardCharsets.UTF_8).length).as("answer to %s", call.describe()).isLessThan(MAX_ANSWER_BYTES);
        if (status >= 400) {
            assertThat(answer.headers().firstValue("Content-Type")).as("%s answered %d: %s", call.describe(), status, body)
                    .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
            JsonNode problem = JSON.readTree(body);
            assertThat(problem.path("code").asString("")).as("%s answered %d: %s", call.describe(), status, body).isNotBlank();
            assertThat(problem.path("status").asInt()).isEqualTo(status);
        } else if (call.method().equals("POST") && call.path().equals("/v1/ratelimit:check")) {
            assertThat(JSON.readTree(body).path("verdict").asString("")).as("%s answered %d: %s", call.describe(), status, body)
                    .isIn("allow", "deny");
        }
    }

    /**
     * A case not answered within {@link #TIMEOUT}: the same request again, once. A hang (a future
     * never completed, a wedged event loop) does not answer the second time either and fails the run;
     * a stall of a loaded 2-core machine does, and is counted. More than {@link #MAX_STALLS} fail it too.
     */
    private static HttpResponse<String> secondChance(FuzzCall call, HttpTimeoutException late) throws Exception {
        try {
            HttpResponse<String> answer = send(call);
            figures.stalled(call);
            assertThat(figures.stalls()).as("more than %d answers later than %d ms; the last to %s", MAX_STALLS, TIMEOUT.toMillis(),
                    call.describe()).isLessThanOrEqualTo(MAX_STALLS);
            return answer;
        } catch (HttpTimeoutException again) {
            again.addSuppressed(late);
            throw new AssertionError("no answer within " + TIMEOUT.toMillis() + " ms, twice, to " + call.describe(), again);
        }
    }

    @Provide
    Arbitrary<FuzzCall> calls() {
        return Arbitraries.frequencyOf(
                Tuple.of(30, structured()),
                Tuple.of(10, repeatedEntries()),
                Tuple.of(8, deepNesting()),
                Tuple.of(8, garbage()),
                Tuple.of(6, huge()),
                Tuple.of(8, contentTypes()),
                Tuple.of(5, methodsAndPaths()));
    }

    /** A request of the right shape with anything in its fields: wrong types, odd numbers, odd text, extra and twice-given keys. */
    private Arbitrary<FuzzCall> structured() {
        Arbitrary<String> entry = Combinators.combine(field("rule", ruleValues()), field("key", keyValues()), field("cost", costValues()),
                        extraField(), Arbitraries.integers().between(0, 9))
                .as((rule, key, cost, extra, order) -> object(order, rule, key, cost, extra));
        Arbitrary<String> entries = Arbitraries.frequencyOf(
                Tuple.of(8, entry.list().ofMinSize(0).ofMaxSize(6).map(list -> "[" + String.join(",", list) + "]")),
                Tuple.of(1, entry.list().ofMinSize(60).ofMaxSize(70).map(list -> "[" + String.join(",", list) + "]")),
                Tuple.of(2, anyValue()));
        return Combinators.combine(field("domain", domainValues()), entries.map(e -> "\"entries\":" + e), extraField(),
                        Arbitraries.integers().between(0, 9))
                .as((domain, list, extra, order) -> FuzzCall.json("structured", object(order, domain, list, extra, "")));
    }

    /** The same (rule, key) many times in one check: the merged cost must never pass a rule's max_cost or its capacity (H2). */
    private Arbitrary<FuzzCall> repeatedEntries() {
        return Combinators.combine(Arbitraries.of(RULES), Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(12),
                        Arbitraries.integers().between(1, 80), Arbitraries.of("", ",\"cost\":1", ",\"cost\":10", ",\"cost\":2147483647"))
                .as((rule, key, times, cost) -> {
                    String one = "{\"rule\":\"" + rule + "\",\"key\":\"rep_" + key + "\"" + cost + "}";
                    String body = "{\"domain\":\"public-api\",\"entries\":[" + String.join(",", java.util.Collections.nCopies(times, one)) + "]}";
                    return FuzzCall.json("repeated", body);
                });
    }

    private Arbitrary<FuzzCall> deepNesting() {
        Arbitrary<Integer> depth = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.integers().between(1, 100)),
                Tuple.of(2, Arbitraries.integers().between(900, 1_100)),
                Tuple.of(1, Arbitraries.integers().between(5_000, 30_000)));
        return Combinators.combine(depth, Arbitraries.of("[", "{\"a\":"), Arbitraries.of("top", "entries", "cost", "key"))
                .as((n, open, where) -> {
                    String close = open.equals("[") ? "]" : "}";
                    String nested = open.repeat(n) + "1" + close.repeat(n);
                    String body = switch (where) {
                        case "top" -> nested;
                        case "entries" -> "{\"domain\":\"public-api\",\"entries\":" + nested + "}";
                        case "cost" -> "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"free-global\",\"key\":\"k\",\"cost\":" + nested + "}]}";
                        default -> "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"free-global\",\"key\":" + nested + "}]}";
                    };
                    return FuzzCall.json("deep", body);
                });
    }

    /** Random bytes, alone or after a valid prefix: invalid UTF-8, NULs, half a string. */
    private Arbitrary<FuzzCall> garbage() {
        Arbitrary<byte[]> bytes = Arbitraries.bytes().array(byte[].class).ofMinSize(0).ofMaxSize(2_000);
        Arbitrary<String> prefix = Arbitraries.of("", "{", "{\"domain\":\"", "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"free-global\",\"key\":\"",
                "{\"domain\":\"public-api\",\"entries\":[{\"cost\":");
        return Combinators.combine(prefix, bytes).as((start, noise) -> {
            byte[] head = start.getBytes(StandardCharsets.UTF_8);
            byte[] body = new byte[head.length + noise.length];
            System.arraycopy(head, 0, body, 0, head.length);
            System.arraycopy(noise, 0, body, head.length, noise.length);
            return new FuzzCall("garbage", "POST", "/v1/ratelimit:check", "application/json", body);
        });
    }

    /** Past every limit: 65 to 3,000 entries, a 60-100 KB string, a key of 10,000 characters, a number of 900-1,100 digits. */
    private Arbitrary<FuzzCall> huge() {
        Arbitrary<FuzzCall> manyEntries = Arbitraries.integers().between(65, 3_000).map(n -> FuzzCall.json("huge-array",
                "{\"domain\":\"public-api\",\"entries\":[" + String.join(",", java.util.Collections.nCopies(n, "{\"rule\":\"free-global\",\"key\":\"k\"}")) + "]}"));
        Arbitrary<FuzzCall> bigString = Arbitraries.integers().between(60_000, 100_000).map(n -> FuzzCall.json("huge-string",
                "{\"domain\":\"" + "d".repeat(n) + "\",\"entries\":[{\"rule\":\"free-global\",\"key\":\"k\"}]}"));
        Arbitrary<FuzzCall> bigKey = Arbitraries.integers().between(257, 10_000).map(n -> FuzzCall.json("huge-key",
                "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"free-global\",\"key\":\"" + "名".repeat(n / 3) + "k".repeat(n % 3) + "\"}]}"));
        Arbitrary<FuzzCall> bigNumber = Arbitraries.integers().between(900, 1_100).map(n -> FuzzCall.json("huge-number",
                "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"free-global\",\"key\":\"k\",\"cost\":1" + "0".repeat(n) + "}]}"));
        return Arbitraries.oneOf(manyEntries, bigString, bigKey, bigNumber);
    }

    private Arbitrary<FuzzCall> contentTypes() {
        Arbitrary<String> type = Arbitraries.of("text/plain", "application/xml", "application/x-www-form-urlencoded", "multipart/form-data",
                "application/json;charset=UTF-16", "application/json;charset=bogus", "application/json;charset=ISO-8859-1",
                "application/json; charset=\"utf-8\"", "application/jsonx", "application/*", "*/*", "application/problem+json",
                "application/json;;;", "json", "application/json;charset=", "application/x-ndjson", "text/event-stream");
        Arbitrary<String> body = Arbitraries.of("{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"free-global\",\"key\":\"ct\"}]}", "", "a=b&c=d",
                "<check/>");
        Arbitrary<FuzzCall> withType = Combinators.combine(type, body).as((t, b) ->
                new FuzzCall("content-type", "POST", "/v1/ratelimit:check", t, b.getBytes(StandardCharsets.UTF_8)));
        Arbitrary<FuzzCall> withoutType = body.map(b -> new FuzzCall("no-content-type", "POST", "/v1/ratelimit:check", null,
                b.getBytes(StandardCharsets.UTF_8)));
        return Arbitraries.oneOf(withType, withoutType);
    }

    private Arbitrary<FuzzCall> methodsAndPaths() {
        Arbitrary<String> method = Arbitraries.of("GET", "PUT", "DELETE", "PATCH", "POST", "OPTIONS");
        Arbitrary<String> path = Arbitraries.oneOf(
                Arbitraries.of("/v1/ratelimit:check", "/v1/ratelimit:check/", "/v1/ratelimit:checkx", "/v1/ratelimit", "/v1/", "/",
                        "/actuator/health", "/actuator/nothing", "/v1/ratelimit:check?x=1", "/v1/ratelimit:check?domain=%00"),
                Arbitraries.strings().alpha().numeric().withChars("-_.~").ofMinLength(1).ofMaxLength(40).map(s -> "/v1/" + s));
        return Combinators.combine(method, path).as((m, p) -> new FuzzCall("method-path", m, p, "application/json",
                m.equals("GET") || m.equals("OPTIONS") ? new byte[0]
                        : "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"free-global\",\"key\":\"mp\"}]}".getBytes(StandardCharsets.UTF_8)));
    }

    // ---- JSON pieces, written by hand so that duplicates, raw numbers and broken text can be sent

    /** {@code "name":value}, sometimes left out (empty), sometimes given twice. */
    private static Arbitrary<String> field(String name, Arbitrary<String> values) {
        return Combinators.combine(values, values, Arbitraries.integers().between(0, 19)).as((value, second, dice) -> {
            if (dice == 0) {
                return "";
            }
            String one = "\"" + name + "\":" + value;
            return dice == 1 ? one + ",\"" + name + "\":" + second : one;
        });
    }

    private static Arbitrary<String> extraField() {
        return Arbitraries.frequencyOf(
                Tuple.of(12, Arbitraries.just("")),
                Tuple.of(1, Combinators.combine(text(), anyValue()).as((name, value) -> string(name, false) + ":" + value)),
                Tuple.of(1, Arbitraries.of("\"costs\":10", "\"dry_run\":true", "\"Cost\":1", "\"domain \":\"x\"")));
    }

    /** The non-empty members in some order, joined into an object. */
    private static String object(int order, String... members) {
        List<String> present = java.util.Arrays.stream(members).filter(m -> !m.isEmpty()).collect(Collectors.toList());
        java.util.Collections.rotate(present, order);
        return "{" + String.join(",", present) + "}";
    }

    private static Arbitrary<String> domainValues() {
        return Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.of("\"public-api\"", "\"auth\"")),
                Tuple.of(3, text().map(s -> string(s, false))),
                Tuple.of(2, anyValue()));
    }

    private static Arbitrary<String> ruleValues() {
        return Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.of(RULES).map(r -> "\"" + r + "\"")),
                Tuple.of(2, text().map(s -> string(s, false))),
                Tuple.of(2, anyValue()));
    }

    private static Arbitrary<String> keyValues() {
        return Arbitraries.frequencyOf(
                Tuple.of(5, Arbitraries.strings().alpha().numeric().withChars("{}_:%").ofMinLength(1).ofMaxLength(30).map(s -> "\"fz_" + s + "\"")),
                Tuple.of(3, text().map(s -> string(s, false))),
                // raw control characters and lone surrogates written as they are: invalid JSON or invalid UTF-8
                Tuple.of(1, text().map(s -> string(s, true))),
                Tuple.of(1, Arbitraries.integers().between(250, 300).map(n -> "\"" + "ü".repeat(n / 2) + "\"")),
                Tuple.of(2, anyValue()));
    }

    /** Numbers as written on the wire, most of them hostile: huge exponents, long fractions, strings, other types. */
    private static Arbitrary<String> costValues() {
        Arbitrary<String> literal = Arbitraries.of("1", "0", "-1", "1.5", "1.0", "2.000000000000", "1e-999999999", "-1e999999999",
                "1e999999999", "-1e-999999999", "1E+2147483647", "1e-2147483648", "2147483647", "2147483648", "-2147483648",
                "9223372036854775808", "1e10", "10", "11", "1.0000000000000000000001", "0.1e1", "100e-2", "-0", "0.0", "NaN", "Infinity",
                "-Infinity", "01", "1.", ".5", "+1", "0x10", "1e", "--1", "1_000");
        Arbitrary<String> exponent = Combinators.combine(Arbitraries.integers().between(-9, 9),
                        Arbitraries.integers().between(-999_999_999, 999_999_999))
                .as((mantissa, exp) -> mantissa + "e" + exp);
        Arbitrary<String> fraction = Combinators.combine(Arbitraries.integers().between(0, 100), Arbitraries.strings().numeric().ofMinLength(1).ofMaxLength(60))
                .as((whole, digits) -> whole + "." + digits);
        return Arbitraries.frequencyOf(
                Tuple.of(6, literal),
                Tuple.of(3, exponent),
                Tuple.of(2, fraction),
                Tuple.of(2, Arbitraries.integers().map(String::valueOf)),
                Tuple.of(2, Arbitraries.oneOf(literal, exponent).map(n -> "\"" + n + "\"")),
                Tuple.of(2, anyValue()));
    }

    /** A value of any JSON type, shallowly nested. */
    private static Arbitrary<String> anyValue() {
        return Arbitraries.oneOf(
                Arbitraries.of("null", "true", "false", "{}", "[]", "[1,2]", "{\"a\":1}", "\"\"", "[null]", "[[[]]]", "{\"rule\":\"free-global\"}"),
                Arbitraries.integers().map(String::valueOf),
                Arbitraries.doubles().map(String::valueOf).filter(d -> !d.contains("N") && !d.contains("I")),
                text().map(s -> string(s, false)));
    }

    /** Any characters at all, lone surrogates and controls included. */
    private static Arbitrary<String> text() {
        return Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.strings().all().ofMinLength(0).ofMaxLength(24)),
                Tuple.of(2, Arbitraries.strings().withCharRange('\uD800', '\uDFFF').ofMinLength(1).ofMaxLength(4)),
                Tuple.of(2, Arbitraries.strings().withCharRange('\u0000', '\u001F').withChars('\u007F', '\u0085', '\u2028', '\uFEFF')
                        .ofMinLength(1).ofMaxLength(6)),
                Tuple.of(1, Arbitraries.of("\uD83D\uDE00", "名前", "ü", "e\u0301", "\u202Eabc", "%00", "{x}", "\\", "\"")));
    }

    /**
     * A JSON string. Escaped: controls and every surrogate as backslash-u escapes, so a lone surrogate
     * reaches the service as a char. Raw: as it is, so a control is invalid JSON and a lone surrogate
     * becomes the encoder's replacement byte.
     */
    static String string(String value, boolean raw) {
        StringBuilder out = new StringBuilder("\"");
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (!raw && (c < 0x20 || Character.isSurrogate(c) || c == 0x7F)) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }
}
