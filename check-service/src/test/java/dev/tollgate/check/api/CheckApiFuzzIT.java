package dev.tollgate.check.api;

import dev.tollgate.check.CheckServiceApplication;
import dev.tollgate.testsupport.fuzz.FuzzCall;
import dev.tollgate.testsupport.fuzz.FuzzRun;
import dev.tollgate.testsupport.fuzz.FuzzValues;
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

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import static dev.tollgate.testsupport.fuzz.FuzzJson.object;
import static dev.tollgate.testsupport.fuzz.FuzzJson.string;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 11: hostile input gets a clear 4xx and costs nothing. A property-based fuzzer of
 * {@code POST /v1/ratelimit:check} against a real check-service on a real port, over the shared
 * Redis Cluster: wrong types, huge exponents, deep nesting, lone surrogates, duplicate keys, repeated
 * entries, huge arrays, garbage bytes, wrong content types and methods. Every case must pass what
 * {@link FuzzRun} asks of every answer (within {@link #TIMEOUT}, or on a second try at most
 * {@link #MAX_STALLS} times; never a 5xx; every 4xx a problem with a {@code code}), in a body that never
 * grows with what was sent, and a check answered 2xx has a verdict; the heap after the run stays
 * within {@link #HEAP_GROWTH}.
 *
 * <p>jqwik runs as its own JUnit Platform engine and has no Spring extension, so the service is started
 * here with {@link SpringApplicationBuilder} on port 0, as {@code @SpringBootTest(RANDOM_PORT)} would.
 */
class CheckApiFuzzIT {

    static final int TRIES = 6_000;
    static final Duration TIMEOUT = Duration.ofSeconds(2);
    /** Late answers a run tolerates, each answered on a second try: CPU starvation, not a hang. */
    static final int MAX_STALLS = 3;
    static final long HEAP_GROWTH = 64L << 20;
    /** The largest answer a check can need: 64 entries' results, or 64 entries' problems. */
    static final int MAX_ANSWER_BYTES = 32 * 1024;

    private static final String CHECK = "/v1/ratelimit:check";
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final List<String> RULES = List.of("free-global", "growth-global", "labels-route", "login-ip", "free-daily", "no-such-rule");

    private static ConfigurableApplicationContext service;
    private static FuzzRun run;

    @BeforeContainer
    static void startService() {
        service = new SpringApplicationBuilder(CheckServiceApplication.class)
                // arguments, not default properties: those would lose to application.yml
                .run(
                        "--server.port=0",
                        "--spring.data.redis.cluster.nodes=" + RedisCluster.shared().clusterNodes(),
                        "--tollgate.redis.command-timeout=1s",
                        "--tollgate.rules.file=src/test/resources/rules-test.yml",
                        "--tollgate.rules.service-url=");
        run = new FuzzRun("check-service fuzz", ((WebServerApplicationContext) service).getWebServer().getPort(), TIMEOUT, MAX_STALLS);
    }

    @AfterContainer
    static void stopService() {
        if (service != null) {
            service.close();
        }
    }

    @BeforeProperty
    void warmUpAndMeasure() throws Exception {
        // the rules file is loaded and the store answers: cases reach the engine, not only the parser
        JsonNode known = JSON.readTree(run.send(check("setup",
                "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"free-global\",\"key\":\"setup\"}]}")).body());
        assertThat(known.path("entries").path(0).has("unknown_rule")).as(known.toString()).isFalse();
        assertThat(known.path("entries").path(0).has("fallback")).as(known.toString()).isFalse();
        // class loading, JIT and the first store connections are not what the heap bound is about
        for (int i = 0; i < 200; i++) {
            run.send(check("warm-up", "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"free-global\",\"key\":\"warm" + i + "\"}]}"));
            run.send(check("warm-up", "{\"domain\":1}"));
        }
        run.start();
    }

    @AfterProperty
    void heapStaysFlat() {
        run.finish(TRIES, HEAP_GROWTH);
    }

    @Property(tries = TRIES, generation = GenerationMode.RANDOMIZED, shrinking = ShrinkingMode.BOUNDED)
    void everyCaseIsAnsweredInTimeWithoutA5xx(@ForAll("calls") FuzzCall call) throws Exception {
        run.check(call, answer -> {
            int status = answer.statusCode();
            String body = answer.body();
            assertThat(body.getBytes(StandardCharsets.UTF_8).length).as("answer to %s", call.describe()).isLessThan(MAX_ANSWER_BYTES);
            if (status < 400 && call.method().equals("POST") && call.path().equals(CHECK)) {
                assertThat(JSON.readTree(body).path("verdict").asString("")).as("%s answered %d: %s", call.describe(), status, body)
                        .isIn("allow", "deny");
            }
        });
    }

    /** A check of {@code body}, sent as JSON. */
    private static FuzzCall check(String kind, String body) {
        return FuzzCall.json(kind, "POST", CHECK, body);
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
                .as((domain, list, extra, order) -> check("structured", object(order, domain, list, extra, "")));
    }

    /**
     * The same (rule, key) many times in one check: the merged cost must never pass a rule's max_cost or its capacity,
     * as copies merged into one spend once did.
     */
    private Arbitrary<FuzzCall> repeatedEntries() {
        return Combinators.combine(Arbitraries.of(RULES), Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(12),
                        Arbitraries.integers().between(1, 80), Arbitraries.of("", ",\"cost\":1", ",\"cost\":10", ",\"cost\":2147483647"))
                .as((rule, key, times, cost) -> {
                    String one = "{\"rule\":\"" + rule + "\",\"key\":\"rep_" + key + "\"" + cost + "}";
                    String body = "{\"domain\":\"public-api\",\"entries\":[" + String.join(",", java.util.Collections.nCopies(times, one)) + "]}";
                    return check("repeated", body);
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
                    return check("deep", body);
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
            return new FuzzCall("garbage", "POST", CHECK, "application/json", body);
        });
    }

    /** Past every limit: 65 to 3,000 entries, a 60-100 KB string, a key of 10,000 characters, a number of 900-1,100 digits. */
    private Arbitrary<FuzzCall> huge() {
        Arbitrary<FuzzCall> manyEntries = Arbitraries.integers().between(65, 3_000).map(n -> check("huge-array",
                "{\"domain\":\"public-api\",\"entries\":[" + String.join(",", java.util.Collections.nCopies(n, "{\"rule\":\"free-global\",\"key\":\"k\"}")) + "]}"));
        Arbitrary<FuzzCall> bigString = Arbitraries.integers().between(60_000, 100_000).map(n -> check("huge-string",
                "{\"domain\":\"" + "d".repeat(n) + "\",\"entries\":[{\"rule\":\"free-global\",\"key\":\"k\"}]}"));
        Arbitrary<FuzzCall> bigKey = Arbitraries.integers().between(257, 10_000).map(n -> check("huge-key",
                "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"free-global\",\"key\":\"" + "名".repeat(n / 3) + "k".repeat(n % 3) + "\"}]}"));
        Arbitrary<FuzzCall> bigNumber = Arbitraries.integers().between(900, 1_100).map(n -> check("huge-number",
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
                new FuzzCall("content-type", "POST", CHECK, t, b.getBytes(StandardCharsets.UTF_8)));
        Arbitrary<FuzzCall> withoutType = body.map(b -> new FuzzCall("no-content-type", "POST", CHECK, null,
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



    private static Arbitrary<String> text() {
        return FuzzValues.text();
    }

    private static Arbitrary<String> anyValue() {
        return FuzzValues.anyValue("{\"rule\":\"free-global\"}", text());
    }
}
