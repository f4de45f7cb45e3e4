package dev.tollgate.rules;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;

import java.util.List;
import java.util.stream.Stream;

import static dev.tollgate.rules.RuleApiIT.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/** The 401 / 403 / 428 matrix: which token may call what, and how a refusal reads. */
class SecurityIT extends ServiceTestBase {

    private static final String RULE = "security-matrix";

    @BeforeEach
    void rule() {
        if (api.get("/v1/rules/" + RULE).status == 404) {
            api.put("/v1/rules/" + RULE, tokenBucket("public-api", 100, 200));
        }
    }

    enum Call {
        LIST_RULES("GET", "/v1/rules", null, TestTokens.READ),
        READ_RULE("GET", "/v1/rules/" + RULE, null, TestTokens.READ),
        READ_VERSIONS("GET", "/v1/rules/" + RULE + "/versions", null, TestTokens.READ),
        READ_CANARY("GET", "/v1/rules/" + RULE + "/canary", null, TestTokens.READ),
        LIST_OVERRIDES("GET", "/v1/overrides", null, TestTokens.READ),
        USAGE("GET", "/v1/keys/acct_1/usage", null, TestTokens.READ),
        HOT_KEYS("GET", "/v1/hot-keys", null, TestTokens.READ),
        WATCH("GET", "/v1/watch", null, TestTokens.WATCH),
        API_DOCS("GET", "/v3/api-docs", null, TestTokens.READ),
        PROMETHEUS("GET", "/actuator/prometheus", null, TestTokens.READ),
        // writes whose body would fail later: authorization is decided first, so 422/428 mean "let in"
        PUT_RULE("PUT", "/v1/rules/" + RULE, "{\"domain\":\"public-api\",\"match\":{\"plan\":\"growth\"},"
                + "\"algorithm\":\"token_bucket\",\"rate_per_s\":100,\"burst\":200}", TestTokens.ADMIN),
        DELETE_RULE("DELETE", "/v1/rules/" + RULE, null, TestTokens.ADMIN),
        SHADOW("POST", "/v1/rules/" + RULE + ":shadow", null, TestTokens.ADMIN),
        // no If-Match and no canary: 428 and 404 once let in
        PUT_CANARY("PUT", "/v1/rules/" + RULE + "?rollout=canary", "{\"domain\":\"public-api\",\"match\":{\"plan\":\"growth\"},"
                + "\"algorithm\":\"token_bucket\",\"rate_per_s\":150,\"burst\":200}", TestTokens.ADMIN),
        PROMOTE("POST", "/v1/rules/" + RULE + ":promote", null, TestTokens.ADMIN),
        ROLLBACK("POST", "/v1/rules/" + RULE + ":rollback", null, TestTokens.ADMIN),
        POST_OVERRIDE("POST", "/v1/overrides", "{\"account_id\":\"a\",\"rule_id\":\"" + RULE + "\"}", TestTokens.ADMIN),
        DELETE_OVERRIDE("DELETE", "/v1/overrides/a/" + RULE, null, TestTokens.ADMIN),
        // a dry run, so that letting it in stores nothing
        IMPORT_ENVOY("POST", "/v1/imports/envoy-ratelimit?dry_run=true", "domain: security-matrix\n", "application/yaml", TestTokens.ADMIN),
        APPLY_CONFIG("POST", "/v1/config:apply?dry_run=true", "domain: security-matrix-config\n", "application/yaml", TestTokens.ADMIN),
        DIFF_CONFIG("POST", "/v1/config:diff", "domain: security-matrix-config\n", "application/yaml", TestTokens.READ),
        // a simulation only reads: a reader may run one (the rule may not exist: 404 is "let in")
        SIMULATE("POST", "/v1/rules/" + RULE + ":simulate?span=10s", "{\"domain\":\"public-api\",\"match\":{\"plan\":\"growth\"},"
                + "\"algorithm\":\"token_bucket\",\"rate_per_s\":1,\"burst\":2}", TestTokens.READ),
        EXPORT_CONFIG("GET", "/v1/config:export?domain=public-api", null, TestTokens.READ);

        final String method;
        final String path;
        final String body;
        final String contentType;
        final String scope;

        Call(String method, String path, String body, String scope) {
            this(method, path, body, "application/json", scope);
        }

        Call(String method, String path, String body, String contentType, String scope) {
            this.method = method;
            this.path = path;
            this.body = body;
            this.contentType = contentType;
            this.scope = scope;
        }
    }

    static Stream<Arguments> calls() {
        return Stream.of(Call.values()).map(Arguments::of);
    }

    @ParameterizedTest
    @MethodSource("calls")
    void withoutATokenIs401(Call call) {
        Api.Response response = send(api.as(null), call);

        assertProblem(response, 401, "unauthorized");
        assertThat(response.header("WWW-Authenticate")).hasValueSatisfying(value -> assertThat(value).startsWith("Bearer"));
    }

    @ParameterizedTest
    @MethodSource("calls")
    void withAnExpiredOrForeignOrGarbageTokenIs401(Call call) {
        assertProblem(send(api.as(TestTokens.expired("alice", call.scope)), call), 401, "unauthorized");
        assertProblem(send(api.as(TestTokens.signedByStranger("alice", call.scope)), call), 401, "unauthorized");
        assertProblem(send(api.as("not-a-jwt"), call), 401, "unauthorized");
    }

    // a rightly signed token of the identity provider's, with the right scope, but issued by another
    // issuer (e.g. another realm sharing the keys) or meant for another client, is no token for this service
    @ParameterizedTest
    @MethodSource("calls")
    void withATokenFromAnotherIssuerOrWithoutOneIs401(Call call) {
        assertProblem(send(api.as(TestTokens.fromIssuer(TestTokens.issuer() + "-other", "alice", call.scope)), call), 401, "unauthorized");
        assertProblem(send(api.as(TestTokens.fromIssuer("https://login.example.com/realms/tollgate", "alice", call.scope)), call),
                401, "unauthorized");
        assertProblem(send(api.as(TestTokens.fromIssuer(null, "alice", call.scope)), call), 401, "unauthorized");
    }

    @ParameterizedTest
    @MethodSource("calls")
    void withATokenForAnotherAudienceOrWithoutOneIs401(Call call) {
        assertProblem(send(api.as(TestTokens.forAudiences(List.of("billing-api"), "alice", call.scope)), call), 401, "unauthorized");
        assertProblem(send(api.as(TestTokens.forAudiences(List.of(), "alice", call.scope)), call), 401, "unauthorized");
    }

    @Test
    void aTokenFromTheIssuerForThisAudienceIsLetIn() {
        Api.Response rules = api.as(TestTokens.token("carol", TestTokens.READ)).get("/v1/rules");
        // a token for several services at once names this one among them
        Api.Response shared = api.as(TestTokens.forAudiences(List.of("billing-api", TestTokens.AUDIENCE), "carol", TestTokens.READ))
                .get("/v1/rules");

        assertThat(rules.status).as(rules.toString()).isEqualTo(200);
        assertThat(shared.status).as(shared.toString()).isEqualTo(200);
    }

    @Test
    void aWrongIssuerIsRefusedWithAProblemSayingWhyItCouldBe() {
        Api.Response response = api.as(TestTokens.fromIssuer("https://elsewhere.example", "alice", TestTokens.ADMIN)).get("/v1/rules");

        assertProblem(response, 401, "unauthorized");
        assertThat(response.json().get("detail").asString()).contains("issuer");
        assertThat(response.header("WWW-Authenticate")).hasValueSatisfying(value -> assertThat(value).contains("invalid_token"));
    }

    @ParameterizedTest
    @MethodSource("calls")
    void withTheWrongScopeIs403NamingTheRightOne(Call call) {
        String[] others = Stream.of(TestTokens.ADMIN, TestTokens.READ, TestTokens.WATCH).filter(s -> !s.equals(call.scope)).toArray(String[]::new);

        Api.Response response = send(api.as(TestTokens.token("mallory", others)), call);

        assertProblem(response, 403, "forbidden");
        assertThat(response.json().get("required_scope").asString()).isEqualTo(call.scope);
    }

    @ParameterizedTest
    @MethodSource("calls")
    void withTheRightScopeIsLetIn(Call call) {
        Api.Response response = send(api.as(TestTokens.token("carol", call.scope)), call);

        assertThat(response.status).as(response.toString()).isNotIn(401, 403);
        assertThat(response.status).as(response.toString()).isLessThan(500);
    }

    @Test
    void healthNeedsNoToken() {
        Api.Response health = api.as(null).get("/actuator/health");

        assertThat(health.status).isEqualTo(200);
        assertThat(health.json().get("status").asString()).isEqualTo("UP");
    }

    @Test
    void aChangeToAnExistingRuleWithoutIfMatchIs428EvenForAnAdmin() {
        Api.Response response = send(api.as(TestTokens.token("carol", TestTokens.ADMIN)), Call.PUT_RULE);

        assertProblem(response, 428, "precondition_required");
    }

    @Test
    void theApiDocumentDescribesTheCustomMethods() {
        Api.Response docs = api.get("/v3/api-docs");

        assertThat(docs.status).isEqualTo(200);
        assertThat(docs.json().get("paths").propertyNames())
                .contains("/v1/rules/{id}", "/v1/rules/{id}:shadow", "/v1/rules/{id}:enforce", "/v1/rules/{id}/versions",
                        "/v1/rules/{id}/canary", "/v1/rules/{id}:promote", "/v1/rules/{id}:rollback",
                        "/v1/overrides", "/v1/overrides/{account}/{rule}", "/v1/keys/{key}/usage", "/v1/hot-keys", "/v1/watch", "/v1/imports/envoy-ratelimit",
                        "/v1/config:apply", "/v1/config:diff", "/v1/config:export", "/v1/rules/{id}:simulate", "/v1/rules:simulate");
        JsonNode rule = docs.json().get("components").get("schemas").get("Rule").get("properties");
        assertThat(rule.propertyNames()).contains("rate_per_s", "fail_mode", "max_cost");
        assertThat(rule.get("algorithm").get("enum").get(0).asString()).isEqualTo("token_bucket");
    }

    @Test
    void metricsAreExposedToAReaderUnderTheTollgatePrefix() {
        api.put("/v1/rules/" + uniqueId("m"), tokenBucket("public-api", 1, 1));

        Api.Response metrics = api.as(TestTokens.token("prometheus", TestTokens.READ)).get("/actuator/prometheus");

        assertThat(metrics.status).isEqualTo(200);
        assertThat(metrics.body).contains("tollgate_rules_changes_total{", "entity=\"rule\"", "kind=\"create\"",
                "tollgate_rules_watch_waiters", "tollgate_rules_watch_revision");
    }

    private static Api.Response send(Api client, Call call) {
        Api.Request request = client.request(call.method, call.path);
        if (call.body != null) {
            request.body(call.body, call.contentType);
        }
        return request.send();
    }
}
