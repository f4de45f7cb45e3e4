package dev.tollgate.rules;

import dev.tollgate.testsupport.fuzz.FuzzCall;
import dev.tollgate.testsupport.fuzz.FuzzRun;
import dev.tollgate.testsupport.fuzz.FuzzValues;
import dev.tollgate.testsupport.postgres.Postgres;
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

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import static dev.tollgate.testsupport.fuzz.FuzzJson.object;
import static dev.tollgate.testsupport.fuzz.FuzzJson.string;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rules API under hostile input. A property-based fuzzer of every rules-service
 * endpoint against a real service on a real port, over a fresh database on the shared PostgreSQL:
 * rules and overrides with wrong types, unknown enum values, huge numbers, long and broken text (NULs,
 * lone surrogates), duplicate and unknown keys, deep nesting, garbage bytes, bodies past the cap, wrong
 * content types, bad {@code If-Match} headers, bad tokens and odd query parameters. Every case must
 * pass what {@link FuzzRun} asks of every answer (within {@link #TIMEOUT}, or on a second try at most
 * {@link #MAX_STALLS} times; never a 5xx; every 4xx a problem with a {@code code}), a problem in a
 * bounded body; the heap after the run stays within {@link #HEAP_GROWTH}.
 *
 * <p>jqwik has no Spring extension, so the service is started here with {@link SpringApplicationBuilder}
 * on port 0, with the same settings as {@link ServiceTestBase}.
 */
class RulesApiFuzzIT {

    static final int TRIES = 4_000;
    /**
     * What "never a hang" allows an answer: the first GET /v3/api-docs builds the whole OpenAPI document, which took
     * over 2 s twice in a row at a load of 30 on 2 cores; a hang is still caught, at 5 s and on a second try.
     */
    static final Duration TIMEOUT = Duration.ofSeconds(5);
    /** Late answers a run tolerates, each answered on a second try: CPU starvation, not a hang. */
    static final int MAX_STALLS = 3;
    static final long HEAP_GROWTH = 64L << 20;
    static final int MAX_PROBLEM_BYTES = 16 * 1024;

    /** Rules the fuzzer's overrides and replacements aim at; created before the run. */
    private static final List<String> KNOWN = List.of("fz-bucket", "fz-login", "fz-daily");

    private static ConfigurableApplicationContext service;
    private static FuzzRun run;
    private static String token;

    @BeforeContainer
    static void startService() {
        Postgres postgres = Postgres.shared();
        service = new SpringApplicationBuilder(RulesServiceApplication.class)
                // arguments, not default properties: those would lose to application.yml
                .run(
                        "--server.port=0",
                        "--spring.datasource.url=" + postgres.newDatabase("rules_fuzz"),
                        "--spring.datasource.username=" + postgres.username(),
                        "--spring.datasource.password=" + postgres.password(),
                        "--spring.security.oauth2.resourceserver.jwt.public-key-location=" + TestTokens.publicKeyLocation(),
                        "--tollgate.security.issuer=" + TestTokens.issuer(),
                        "--spring.security.oauth2.resourceserver.jwt.audiences=" + TestTokens.audience(),
                        "--tollgate.watch.timeout=1500ms",
                        "--tollgate.watch.poll=50ms",
                        "--tollgate.usage.region=us-east",
                        "--spring.data.redis.cluster.nodes=" + RedisCluster.shared().clusterNodes(),
                        "--spring.data.redis.timeout=1s");
        run = new FuzzRun("rules-service fuzz", ((WebServerApplicationContext) service).getWebServer().getPort(), TIMEOUT, MAX_STALLS);
        token = TestTokens.all("fuzzer");
    }

    @AfterContainer
    static void stopService() {
        if (service != null) {
            service.close();
        }
    }

    @BeforeProperty
    void createTargetsWarmUpAndMeasure() throws Exception {
        run.send(FuzzCall.json("setup", "PUT", "/v1/rules/fz-bucket", "{\"domain\":\"public-api\",\"match\":{\"plan\":\"growth\"},"
                + "\"algorithm\":\"token_bucket\",\"rate_per_s\":10,\"burst\":20,\"max_cost\":5}", token));
        run.send(FuzzCall.json("setup", "PUT", "/v1/rules/fz-login", "{\"domain\":\"auth\",\"match\":{\"route\":\"/login\"},"
                + "\"algorithm\":\"sliding_log\",\"limit\":5,\"window_s\":60,\"fail_mode\":\"closed\"}", token));
        run.send(FuzzCall.json("setup", "PUT", "/v1/rules/fz-daily", "{\"domain\":\"public-api\",\"match\":{\"plan\":\"free\"},"
                + "\"algorithm\":\"fixed_window\",\"limit\":10000,\"window_s\":86400}", token));
        // the targets exist, so overrides and replacements reach the store and its checks, not only the validator
        for (String id : KNOWN) {
            assertThat(run.send(new FuzzCall("setup", "GET", "/v1/rules/" + id, null, null, token, null)).statusCode()).isEqualTo(200);
        }
        for (int i = 0; i < 100; i++) {
            run.send(FuzzCall.json("warm-up", "PUT", "/v1/rules/warm-" + i, "{\"domain\":7}", token));
            run.send(new FuzzCall("warm-up", "GET", "/v1/rules/fz-bucket", null, null, token, null));
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
            if (answer.statusCode() >= 400) {
                assertThat(answer.body().getBytes(StandardCharsets.UTF_8).length).as("problem for %s", call.describe())
                        .isLessThan(MAX_PROBLEM_BYTES);
            }
        });
    }

    @Provide
    Arbitrary<FuzzCall> calls() {
        return Arbitraries.frequencyOf(
                Tuple.of(30, rulePuts()),
                Tuple.of(8, validWrites()),
                Tuple.of(12, overridePosts()),
                Tuple.of(6, modeSwitches()),
                Tuple.of(10, reads()),
                Tuple.of(5, deletes()),
                Tuple.of(5, deepNesting()),
                Tuple.of(5, garbage()),
                Tuple.of(4, huge()),
                Tuple.of(5, contentTypes()),
                Tuple.of(4, tokens()));
    }

    // ---- rules

    private Arbitrary<FuzzCall> rulePuts() {
        Arbitrary<String> match = Combinators.combine(field("plan", textValues(Arbitraries.of("\"growth\"", "\"free\"", "\"*\""))),
                        field("route", textValues(Arbitraries.of("\"/login\"", "\"/v1/labels\"", "\"*\""))), extraField())
                .as((plan, route, extra) -> "{" + join(plan, route, extra) + "}");
        Arbitrary<String> algorithm = enumValues("token_bucket", "sliding_log", "fixed_window", "TOKEN_BUCKET", "Sliding_Log");
        Arbitrary<String> numbers = Combinators.combine(field("rate_per_s", intValues()), field("period_s", intValues()),
                        field("burst", intValues()), field("limit", intValues()), field("window_s", intValues()), field("max_cost", intValues()))
                .as((rate, period, burst, limit, window, maxCost) -> join(rate, period, burst, limit, window, maxCost));
        Arbitrary<String> rest = Combinators.combine(field("identity", enumValues("api_key", "ip", "user")), field("mode", enumValues("enforce", "shadow")),
                        field("fail_mode", enumValues("open", "closed")), field("reason", reasonValues()), field("version", intValues()), extraField())
                .as((identity, mode, failMode, reason, version, extra) -> join(identity, mode, failMode, reason, version, extra));
        Arbitrary<String> body = Combinators.combine(field("domain", textValues(Arbitraries.of("\"public-api\"", "\"auth\""))),
                        match.map(m -> "\"match\":" + m), field("algorithm", algorithm), numbers, rest,
                        Arbitraries.integers().between(0, 9))
                .as((domain, m, alg, nums, more, order) -> object(order, domain, m, alg, nums, more));
        Arbitrary<String> ifMatch = Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.just("")),
                Tuple.of(2, Arbitraries.of("\"1\"", "\"2\"", "1", "*", "\"abc\"", "W/\"1\"", "\"99999999999999999999\"", "\"-1\"", "\"1\", \"2\"")));
        return Combinators.combine(ruleIds(), body, ifMatch).as((id, json, precondition) -> {
            FuzzCall call = FuzzCall.json("rule-put", "PUT", "/v1/rules/" + id, json, token);
            return precondition.isEmpty() ? call : call.withIfMatch(precondition);
        });
    }

    /** Rules and overrides that are right, so that creates, replacements, conflicts and the store's own checks run too. */
    private Arbitrary<FuzzCall> validWrites() {
        Arbitrary<String> bucket = Combinators.combine(Arbitraries.integers().between(1, 10_000), Arbitraries.integers().between(1, 100),
                        Arbitraries.of(1, 60, 3600))
                .as((rate, burst, period) -> "\"algorithm\":\"token_bucket\",\"rate_per_s\":" + rate + ",\"burst\":" + burst + ",\"period_s\":" + period);
        Arbitrary<String> log = Combinators.combine(Arbitraries.integers().between(1, 10_000), Arbitraries.integers().between(1, 3_600))
                .as((limit, window) -> "\"algorithm\":\"sliding_log\",\"limit\":" + limit + ",\"window_s\":" + window);
        Arbitrary<String> window = Combinators.combine(Arbitraries.integers().between(1, 100_000_000), Arbitraries.of(60, 3600, 86_400))
                .as((limit, seconds) -> "\"algorithm\":\"fixed_window\",\"limit\":" + limit + ",\"window_s\":" + seconds);
        Arbitrary<String> rule = Combinators.combine(Arbitraries.oneOf(bucket, log, window), Arbitraries.of("growth", "free", "名前"),
                        Arbitraries.of("enforce", "shadow"), Arbitraries.of("open", "closed"))
                .as((limits, plan, mode, failMode) -> "{\"domain\":\"fuzz\",\"match\":{\"plan\":\"" + plan + "\"}," + limits
                        + ",\"mode\":\"" + mode + "\",\"fail_mode\":\"" + failMode + "\",\"reason\":\"fuzz\"}");
        Arbitrary<FuzzCall> create = Combinators.combine(Arbitraries.strings().alpha().numeric().ofMinLength(8).ofMaxLength(20), rule)
                .as((id, json) -> FuzzCall.json("valid-rule", "PUT", "/v1/rules/fz-" + id, json, token));
        Arbitrary<FuzzCall> replace = Combinators.combine(Arbitraries.of(KNOWN), rule, Arbitraries.integers().between(1, 4))
                .as((id, json, version) -> FuzzCall.json("valid-replace", "PUT", "/v1/rules/" + id, json, token).withIfMatch("\"" + version + "\""));
        Arbitrary<FuzzCall> override = Combinators.combine(Arbitraries.strings().alpha().numeric().ofMinLength(1).ofMaxLength(30),
                        Arbitraries.integers().between(1, 1_000), Arbitraries.integers().between(5, 1_000))
                .as((account, rate, burst) -> FuzzCall.json("valid-override", "POST", "/v1/overrides", "{\"account_id\":\"acct_" + account
                        + "\",\"rule_id\":\"fz-bucket\",\"rate_per_s\":" + rate + ",\"burst\":" + burst + ",\"reason\":\"fuzz\"}", token));
        return Arbitraries.frequencyOf(Tuple.of(4, create), Tuple.of(2, replace), Tuple.of(3, override));
    }

    /** Mostly new valid ids (creates), some known ones (replacements), some that cannot be ids. */
    private static Arbitrary<String> ruleIds() {
        return Arbitraries.frequencyOf(
                Tuple.of(5, Arbitraries.strings().alpha().numeric().ofMinLength(1).ofMaxLength(20).map(s -> "fz-" + s)),
                Tuple.of(2, Arbitraries.of(KNOWN)),
                Tuple.of(2, pathSegment()));
    }

    // ---- overrides

    private Arbitrary<FuzzCall> overridePosts() {
        Arbitrary<String> account = textValues(Arbitraries.strings().alpha().numeric().withChars("_-:{}").ofMinLength(1).ofMaxLength(30)
                .map(s -> "\"acct_" + s + "\""));
        Arbitrary<String> rule = textValues(Arbitraries.of(KNOWN).map(r -> "\"" + r + "\""));
        Arbitrary<String> expiry = Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.of("\"2099-01-01T00:00:00Z\"", "\"2020-01-01T00:00:00Z\"", "\"2099-01-01\"", "\"tomorrow\"",
                        "\"+999999999-12-31T23:59:59Z\"", "\"2099-01-01T00:00:00+25:00\"", "4102444800", "-1", "1e999999999", "null")),
                Tuple.of(1, anyValue()));
        return Combinators.combine(field("account_id", account), field("rule_id", rule), field("rate_per_s", intValues()),
                        field("burst", intValues()), field("expires_at", expiry), field("reason", reasonValues()), extraField(),
                        Arbitraries.integers().between(0, 9))
                .as((a, r, rate, burst, expires, reason, extra, order) -> FuzzCall.json("override-post", "POST", "/v1/overrides",
                        object(order, a, r, rate, burst, expires, reason, extra), token));
    }

    private Arbitrary<FuzzCall> modeSwitches() {
        Arbitrary<String> body = Arbitraries.frequencyOf(
                Tuple.of(3, field("reason", reasonValues()).map(r -> "{" + r + "}")),
                Tuple.of(1, Arbitraries.of("", "null", "[]", "\"why\"", "{\"reason\":1}", "{\"why\":\"x\"}")));
        return Combinators.combine(ruleIds(), Arbitraries.of(":shadow", ":enforce"), body)
                .as((id, verb, json) -> FuzzCall.json("mode", "POST", "/v1/rules/" + id + verb, json, token));
    }

    // ---- reads and deletes, with odd parameters

    private Arbitrary<FuzzCall> reads() {
        Arbitrary<String> path = Arbitraries.oneOf(
                query("/v1/rules?domain="),
                ruleIds().map(id -> "/v1/rules/" + id),
                ruleIds().map(id -> "/v1/rules/" + id + "/versions"),
                Combinators.combine(query("/v1/overrides?account_id="), query("&rule_id="), Arbitraries.of("", "&include_expired=true",
                        "&include_expired=maybe")).as((a, r, e) -> a + r + e),
                Combinators.combine(pathSegment(), query("?domain=")).as((key, domain) -> "/v1/keys/" + key + "/usage" + domain),
                Arbitraries.of("/v1/watch?since=abc", "/v1/watch?since=-1", "/v1/watch?since=99999999999999999999999", "/v1/watch?since=1e3",
                        "/v1/watch?since=0", "/v3/api-docs", "/actuator/health", "/actuator/prometheus", "/v1/nothing", "/v1/rules/"));
        return path.map(p -> new FuzzCall("read", "GET", p, null, null, token, null));
    }

    private Arbitrary<FuzzCall> deletes() {
        Arbitrary<String> path = Arbitraries.oneOf(
                Combinators.combine(ruleIds(), query("?reason=")).as((id, reason) -> "/v1/rules/" + id + reason),
                Combinators.combine(pathSegment(), ruleIds(), query("?reason=")).as((a, r, reason) -> "/v1/overrides/" + a + "/" + r + reason));
        Arbitrary<String> ifMatch = Arbitraries.of("", "\"1\"", "\"7\"", "x");
        return Combinators.combine(path, ifMatch).as((p, precondition) -> {
            FuzzCall call = new FuzzCall("delete", "DELETE", p, null, null, token, null);
            return precondition.isEmpty() ? call : call.withIfMatch(precondition);
        });
    }

    // ---- shapes that are not a rule at all

    private Arbitrary<FuzzCall> deepNesting() {
        Arbitrary<Integer> depth = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.integers().between(1, 100)),
                Tuple.of(2, Arbitraries.integers().between(900, 1_100)),
                Tuple.of(1, Arbitraries.integers().between(5_000, 20_000)));
        return Combinators.combine(depth, Arbitraries.of("[", "{\"a\":"), Arbitraries.of("top", "match", "rate_per_s"))
                .as((n, open, where) -> {
                    String close = open.equals("[") ? "]" : "}";
                    String nested = open.repeat(n) + "1" + close.repeat(n);
                    String body = switch (where) {
                        case "top" -> nested;
                        case "match" -> "{\"domain\":\"d\",\"match\":" + nested + ",\"algorithm\":\"token_bucket\",\"rate_per_s\":1,\"burst\":1}";
                        default -> "{\"domain\":\"d\",\"match\":{\"plan\":\"p\"},\"algorithm\":\"token_bucket\",\"rate_per_s\":" + nested + "}";
                    };
                    return FuzzCall.json("deep", "PUT", "/v1/rules/fz-deep", body, token);
                });
    }

    private Arbitrary<FuzzCall> garbage() {
        Arbitrary<byte[]> bytes = Arbitraries.bytes().array(byte[].class).ofMinSize(0).ofMaxSize(2_000);
        Arbitrary<String> prefix = Arbitraries.of("", "{", "{\"domain\":\"", "{\"domain\":\"d\",\"match\":{\"plan\":\"", "{\"rate_per_s\":");
        Arbitrary<String> target = Arbitraries.of("PUT /v1/rules/fz-garbage", "POST /v1/overrides", "POST /v1/rules/fz-bucket:shadow");
        return Combinators.combine(target, prefix, bytes).as((t, start, noise) -> {
            byte[] head = start.getBytes(StandardCharsets.UTF_8);
            byte[] body = Arrays.copyOf(head, head.length + noise.length);
            System.arraycopy(noise, 0, body, head.length, noise.length);
            String[] parts = t.split(" ");
            return new FuzzCall("garbage", parts[0], parts[1], "application/json", body, token, null);
        });
    }

    /** Past the 64 KiB cap, or long text under it, or numbers of a thousand digits. */
    private Arbitrary<FuzzCall> huge() {
        Arbitrary<FuzzCall> pastCap = Arbitraries.integers().between(66_000, 200_000).map(n -> FuzzCall.json("huge-body", "PUT", "/v1/rules/fz-huge",
                "{\"domain\":\"d\",\"match\":{\"plan\":\"p\"},\"algorithm\":\"token_bucket\",\"rate_per_s\":1,\"burst\":1,\"reason\":\""
                        + "r".repeat(n) + "\"}", token));
        Arbitrary<FuzzCall> longText = Combinators.combine(Arbitraries.of("domain", "reason", "plan"), Arbitraries.integers().between(1_000, 60_000))
                .as((where, n) -> {
                    String text = "\"" + "t".repeat(n) + "\"";
                    String body = switch (where) {
                        case "domain" -> "{\"domain\":" + text + ",\"match\":{\"plan\":\"p\"},\"algorithm\":\"token_bucket\",\"rate_per_s\":1,\"burst\":1}";
                        case "plan" -> "{\"domain\":\"d\",\"match\":{\"plan\":" + text + "},\"algorithm\":\"token_bucket\",\"rate_per_s\":1,\"burst\":1}";
                        default -> "{\"domain\":\"d\",\"match\":{\"plan\":\"p\"},\"algorithm\":\"token_bucket\",\"rate_per_s\":1,\"burst\":1,\"reason\":" + text + "}";
                    };
                    return FuzzCall.json("huge-text", "PUT", "/v1/rules/fz-long", body, token);
                });
        Arbitrary<FuzzCall> longNumber = Arbitraries.integers().between(900, 1_100).map(n -> FuzzCall.json("huge-number", "PUT", "/v1/rules/fz-num",
                "{\"domain\":\"d\",\"match\":{\"plan\":\"p\"},\"algorithm\":\"token_bucket\",\"rate_per_s\":1" + "0".repeat(n) + ",\"burst\":1}", token));
        Arbitrary<FuzzCall> longAccount = Arbitraries.integers().between(200, 2_000).map(n -> FuzzCall.json("huge-account", "POST", "/v1/overrides",
                "{\"account_id\":\"" + "ü".repeat(n) + "\",\"rule_id\":\"fz-bucket\",\"rate_per_s\":5,\"burst\":5}", token));
        return Arbitraries.oneOf(pastCap, longText, longNumber, longAccount);
    }

    private Arbitrary<FuzzCall> contentTypes() {
        Arbitrary<String> type = Arbitraries.of("text/plain", "application/xml", "application/x-www-form-urlencoded", "multipart/form-data",
                "application/json;charset=UTF-16", "application/json;charset=bogus", "application/json;charset=ISO-8859-1",
                "application/jsonx", "application/*", "*/*", "application/problem+json", "application/json;;;", "json", "");
        Arbitrary<String> body = Arbitraries.of("{\"domain\":\"d\",\"match\":{\"plan\":\"p\"},\"algorithm\":\"token_bucket\",\"rate_per_s\":1,\"burst\":1}",
                "", "a=b&c=d", "<rule/>");
        Arbitrary<String> target = Arbitraries.of("PUT /v1/rules/fz-ct", "POST /v1/overrides", "POST /v1/rules/fz-bucket:enforce", "PATCH /v1/rules/fz-ct",
                "POST /v1/rules", "PUT /v1/overrides");
        return Combinators.combine(target, type, body).as((t, contentType, b) -> {
            String[] parts = t.split(" ");
            return new FuzzCall("content-type", parts[0], parts[1], contentType.isEmpty() ? null : contentType,
                    b.getBytes(StandardCharsets.UTF_8), token, null);
        });
    }

    /** No token, a malformed one, one signed by a stranger, an expired one, one without the admin scope. */
    private Arbitrary<FuzzCall> tokens() {
        Arbitrary<String> bad = Arbitraries.of("", "x", "Bearer", "a.b.c", "expired", "stranger", "read-only");
        Arbitrary<String> target = Arbitraries.of("PUT /v1/rules/fz-auth", "GET /v1/rules", "POST /v1/overrides", "GET /v1/watch?since=0");
        return Combinators.combine(target, bad).as((t, which) -> {
            String[] parts = t.split(" ");
            String presented = switch (which) {
                case "" -> null;
                case "expired" -> TestTokens.expired("fuzzer", TestTokens.ADMIN);
                case "stranger" -> TestTokens.signedByStranger("fuzzer", TestTokens.ADMIN);
                case "read-only" -> TestTokens.token("fuzzer", TestTokens.READ);
                default -> which;
            };
            return FuzzCall.json("token", parts[0], parts[1], "{\"domain\":\"d\"}", token).withToken(presented);
        });
    }

    // ---- JSON pieces, written by hand so that duplicates, raw numbers and broken text can be sent

    /** {@code "name":value}, sometimes left out (empty), sometimes given twice. */
    private static Arbitrary<String> field(String name, Arbitrary<String> values) {
        return Combinators.combine(values, values, Arbitraries.integers().between(0, 19)).as((value, second, dice) -> {
            if (dice <= 1) {
                return "";
            }
            String one = "\"" + name + "\":" + value;
            return dice == 2 ? one + ",\"" + name + "\":" + second : one;
        });
    }

    private static Arbitrary<String> extraField() {
        return Arbitraries.frequencyOf(
                Tuple.of(12, Arbitraries.just("")),
                Tuple.of(1, Combinators.combine(text(), anyValue()).as((name, value) -> string(name, false) + ":" + value)),
                Tuple.of(1, Arbitraries.of("\"max_cots\":5", "\"Domain\":\"d\"", "\"tier\":\"gold\"", "\"id\":\"other\"", "\"id\":null")));
    }

    private static String join(String... members) {
        return Arrays.stream(members).filter(m -> !m.isEmpty()).collect(Collectors.joining(","));
    }


    /** Good values most of the time, else text of any kind or a value of another type. */
    private static Arbitrary<String> textValues(Arbitrary<String> good) {
        return Arbitraries.frequencyOf(
                Tuple.of(6, good),
                Tuple.of(3, text().map(s -> string(s, false))),
                Tuple.of(1, text().map(s -> string(s, true))),
                Tuple.of(2, anyValue()));
    }

    private static Arbitrary<String> reasonValues() {
        return Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.of("\"launch week\"", "\"line one\\nline two\\tok\"", "null")),
                Tuple.of(2, text().map(s -> string(s, false))),
                Tuple.of(1, Arbitraries.integers().between(990, 1_010).map(n -> "\"" + "r".repeat(n) + "\"")),
                Tuple.of(1, anyValue()));
    }

    private static Arbitrary<String> enumValues(String... good) {
        return Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.of(good).map(v -> "\"" + v + "\"")),
                Tuple.of(2, Arbitraries.of("\"leaky\"", "\"\"", "\"token bucket\"", "\"token_bucket \"", "0", "1", "2", "3", "-1", "\"1\"")),
                Tuple.of(1, text().map(s -> string(s, false))),
                Tuple.of(1, anyValue()));
    }

    /** Integers as written on the wire, many of them hostile. */
    private static Arbitrary<String> intValues() {
        Arbitrary<String> literal = Arbitraries.of("1", "5", "10", "20", "60", "100", "86400", "10000", "10001", "100000000", "100000001",
                "10000000", "10000001", "0", "-1", "1.5", "1.0", "1e3", "1e-999999999", "-1e999999999", "1e999999999", "2147483647",
                "2147483648", "-2147483649", "9223372036854775808", "NaN", "Infinity", "01", "+1", "0x10");
        return Arbitraries.frequencyOf(
                Tuple.of(6, literal),
                Tuple.of(3, Arbitraries.integers().between(1, 1_000).map(String::valueOf)),
                Tuple.of(1, Arbitraries.integers().map(String::valueOf)),
                Tuple.of(1, literal.map(n -> "\"" + n + "\"")),
                Tuple.of(1, anyValue()));
    }



    /** A query parameter's value (after {@code prefix}): ordinary, empty, any text URL-encoded, or a NUL. */
    private static Arbitrary<String> query(String prefix) {
        return Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.strings().alpha().numeric().ofMinLength(1).ofMaxLength(20)),
                Tuple.of(1, Arbitraries.just("")),
                Tuple.of(3, text().map(s -> URLEncoder.encode(s, StandardCharsets.UTF_8))),
                // a lone "%" or "%zz" cannot be sent: java.net.URI refuses it before the request leaves
                Tuple.of(1, Arbitraries.of("%00", "a%00b", "%FF%FE", "%C0%80", "%E2%82", "%ED%A0%80")),
                Tuple.of(1, Arbitraries.integers().between(1_000, 3_000).map("q"::repeat)))
                .map(value -> prefix + value);
    }

    /**
     * A path segment a client could send: letters, digits and unreserved marks, unicode URL-encoded.
     * Not NULs, slashes, backslashes or dot segments: Tomcat refuses those itself with its own 400 page
     * before the application sees the request (StrictInputIT shows it for a NUL).
     */
    private static Arbitrary<String> pathSegment() {
        return Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.strings().alpha().numeric().withChars("-_.~").ofMinLength(1).ofMaxLength(70)),
                Tuple.of(2, Arbitraries.strings().withChars("{}:@!$&'()*+,= ").alpha().ofMinLength(1).ofMaxLength(20)
                        .map(s -> URLEncoder.encode(s, StandardCharsets.UTF_8))),
                Tuple.of(1, Arbitraries.strings().withCharRange('\u00A0', '\u07FF').ofMinLength(1).ofMaxLength(20)
                        .map(s -> URLEncoder.encode(s, StandardCharsets.UTF_8))),
                Tuple.of(1, Arbitraries.integers().between(300, 2_000).map("s"::repeat)))
                .filter(s -> !s.equals(".") && !s.equals("..") && !s.startsWith("."));
    }

    private static Arbitrary<String> text() {
        return FuzzValues.text("'; DROP TABLE rules; --");
    }

    private static Arbitrary<String> anyValue() {
        return FuzzValues.anyValue("{\"plan\":\"growth\"}", text());
    }
}
