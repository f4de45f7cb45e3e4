package dev.tollgate.rules;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.stream.Stream;

import static dev.tollgate.rules.RuleApiIT.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/** Every reason a rule or override is refused with 422 {@code invalid_rule}, and that nothing was stored. */
class ValidationIT extends ServiceTestBase {

    static Stream<Arguments> badRules() {
        return Stream.of(
                arguments("rate 0", "{'domain':'d','match':{'plan':'p'},'algorithm':'token_bucket','rate_per_s':0,'burst':10}", "rate_per_s"),
                arguments("negative rate", "{'domain':'d','match':{'plan':'p'},'algorithm':'token_bucket','rate_per_s':-5,'burst':10}", "rate_per_s"),
                arguments("burst below max_cost", "{'domain':'d','match':{'plan':'p'},'algorithm':'token_bucket','rate_per_s':10,'burst':5,'max_cost':10}", "burst"),
                arguments("burst 0", "{'domain':'d','match':{'plan':'p'},'algorithm':'token_bucket','rate_per_s':10,'burst':0}", "burst"),
                arguments("no match: every plan and route", "{'domain':'d','algorithm':'token_bucket','rate_per_s':10,'burst':10}", "match"),
                arguments("match * and *", "{'domain':'d','match':{'plan':'*','route':'*'},'algorithm':'token_bucket','rate_per_s':10,'burst':10}", "match"),
                arguments("token bucket without rate", "{'domain':'d','match':{'plan':'p'},'algorithm':'token_bucket','burst':10}", "rate_per_s"),
                arguments("token bucket without burst", "{'domain':'d','match':{'plan':'p'},'algorithm':'token_bucket','rate_per_s':10}", "burst"),
                arguments("period 0", "{'domain':'d','match':{'plan':'p'},'algorithm':'token_bucket','rate_per_s':10,'burst':10,'period_s':0}", "period_s"),
                arguments("sliding log without limit", "{'domain':'d','match':{'route':'login'},'algorithm':'sliding_log','window_s':60}", "limit"),
                arguments("sliding log without window", "{'domain':'d','match':{'route':'login'},'algorithm':'sliding_log','limit':5}", "window_s"),
                arguments("fixed window without limit", "{'domain':'d','match':{'plan':'free'},'algorithm':'fixed_window','window_s':86400}", "limit"),
                arguments("fixed window without window", "{'domain':'d','match':{'plan':'free'},'algorithm':'fixed_window','limit':10000}", "window_s"),
                arguments("limit below max_cost", "{'domain':'d','match':{'plan':'free'},'algorithm':'fixed_window','limit':5,'window_s':60,'max_cost':10}", "limit"),
                arguments("limit 0", "{'domain':'d','match':{'plan':'free'},'algorithm':'fixed_window','limit':0,'window_s':60}", "limit"),
                arguments("no algorithm", "{'domain':'d','match':{'plan':'p'},'rate_per_s':10,'burst':10}", "algorithm"),
                arguments("no domain", "{'match':{'plan':'p'},'algorithm':'token_bucket','rate_per_s':10,'burst':10}", "domain"),
                arguments("max_cost 0", "{'domain':'d','match':{'plan':'p'},'algorithm':'token_bucket','rate_per_s':10,'burst':10,'max_cost':0}", "max_cost"),
                // the sliding log's script does one ZADD per unit of cost
                arguments("sliding log limit 10,001", "{'domain':'d','match':{'route':'login'},'algorithm':'sliding_log','limit':10001,'window_s':60}", "limit"),
                arguments("sliding log max_cost 101", "{'domain':'d','match':{'route':'login'},'algorithm':'sliding_log','limit':1000,'window_s':60,'max_cost':101}", "max_cost"),
                // lengths and control characters: text PostgreSQL would refuse, or too long to ship to every pod
                arguments("domain of 129 characters", "{'domain':'" + "d".repeat(129) + "','match':{'plan':'p'},'algorithm':'token_bucket','rate_per_s':10,'burst':10}", "domain"),
                arguments("domain with a NUL", "{'domain':'d\\u0000','match':{'plan':'p'},'algorithm':'token_bucket','rate_per_s':10,'burst':10}", "domain"),
                arguments("plan of 257 characters", "{'domain':'d','match':{'plan':'" + "p".repeat(257) + "'},'algorithm':'token_bucket','rate_per_s':10,'burst':10}", "match.plan"),
                arguments("route with a newline", "{'domain':'d','match':{'route':'/lo\\ngin'},'algorithm':'sliding_log','limit':5,'window_s':60}", "match.route"),
                arguments("route with a lone surrogate", "{'domain':'d','match':{'route':'/login\\ud800'},'algorithm':'sliding_log','limit':5,'window_s':60}", "match.route"),
                arguments("reason of 1,001 characters", "{'domain':'d','match':{'plan':'p'},'algorithm':'token_bucket','rate_per_s':10,'burst':10,'reason':'" + "r".repeat(1001) + "'}", "reason"),
                arguments("reason with a NUL", "{'domain':'d','match':{'plan':'p'},'algorithm':'token_bucket','rate_per_s':10,'burst':10,'reason':'why\\u0000'}", "reason"),
                // an enum value that names nothing is a rule that cannot be enforced
                arguments("unknown algorithm", "{'domain':'d','match':{'plan':'p'},'algorithm':'leaky_bucket','rate_per_s':10,'burst':10}", "algorithm"),
                arguments("algorithm as an index", "{'domain':'d','match':{'plan':'p'},'algorithm':1,'limit':10,'window_s':60}", "algorithm"),
                arguments("unknown fail mode", "{'domain':'d','match':{'plan':'p'},'algorithm':'token_bucket','rate_per_s':10,'burst':10,'fail_mode':'ajar'}", "fail_mode"),
                arguments("unknown identity", "{'domain':'d','match':{'plan':'p'},'algorithm':'token_bucket','rate_per_s':10,'burst':10,'identity':'cookie'}", "identity"),
                arguments("unknown mode", "{'domain':'d','match':{'plan':'p'},'algorithm':'token_bucket','rate_per_s':10,'burst':10,'mode':'loud'}", "mode"),
                // login attempts must not run over: a sliding log counts before it admits
                arguments("sliding log counted after", "{'domain':'d','match':{'route':'login'},'algorithm':'sliding_log','limit':5,'window_s':60,'counting':'after'}", "counting"),
                arguments("unknown counting", "{'domain':'d','match':{'plan':'p'},'algorithm':'token_bucket','rate_per_s':10,'burst':10,'counting':'later'}", "counting"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badRules")
    void refusesABadRuleBeforeStoringAnything(String why, String body, String field) {
        String id = uniqueId("bad");
        long revision = storeRevision();

        Api.Response refused = api.put("/v1/rules/" + id, Api.json(body));

        assertProblem(refused, 422, "invalid_rule");
        assertThat(refused.json().get("errors").findValuesAsString("field")).contains(field);
        assertThat(api.get("/v1/rules/" + id).status).isEqualTo(404);
        assertThat(api.get("/v1/rules/" + id + "/versions").status).isEqualTo(404);
        assertThat(storeRevision()).isEqualTo(revision);
    }

    @Test
    void refusesAnIdThatCannotBeAKeyName() {
        Api.Response refused = api.put("/v1/rules/-starts-with-a-dash", tokenBucket("d", 10, 10));

        assertProblem(refused, 422, "invalid_rule");
        assertThat(refused.json().get("errors").get(0).get("field").asString()).isEqualTo("id");
    }

    @Test
    void refusesAReplacementThatWrongsAnExistingRuleAndKeepsTheOldOne() {
        String id = uniqueId("r");
        api.put("/v1/rules/" + id, tokenBucket("public-api", 100, 200));

        Api.Response refused = api.request("PUT", "/v1/rules/" + id).ifMatch(1)
                .body(Api.json("{'domain':'public-api','match':{'plan':'growth'},'algorithm':'token_bucket','rate_per_s':0,'burst':200}")).send();

        assertProblem(refused, 422, "invalid_rule");
        assertThat(api.get("/v1/rules/" + id).json().get("rate_per_s").asInt()).isEqualTo(100);
    }

    @Test
    void refusesARuleChangeThatWouldInvalidateAnActiveOverride() {
        String id = uniqueId("r");
        api.put("/v1/rules/" + id, tokenBucket("public-api", 100, 200));
        api.post("/v1/overrides", override("acct_9", id, 10, 5, null));

        Api.Response refused = api.request("PUT", "/v1/rules/" + id).ifMatch(1)
                .body(Api.json("{'domain':'public-api','match':{'plan':'growth'},'algorithm':'token_bucket','rate_per_s':100,"
                        + "'burst':200,'max_cost':10}")).send();

        assertProblem(refused, 422, "invalid_rule");
        assertThat(refused.json().get("errors").get(0).get("field").asString()).isEqualTo("overrides[acct_9].burst");
    }

    static Stream<Arguments> badOverrides() {
        return Stream.of(
                arguments("unknown rule", "nope", 10, 10, null, "rule_id"),
                arguments("rate 0", null, 0, 10, null, "rate_per_s"),
                arguments("negative rate", null, -1, 10, null, "rate_per_s"),
                arguments("burst below max_cost", null, 10, 3, null, "burst"),
                arguments("expiry in the past", null, 10, 10, "2020-01-01T00:00:00Z", "expires_at"),
                arguments("missing rate", null, null, 10, null, "rate_per_s"),
                arguments("missing burst", null, 10, null, null, "burst"),
                // an account is a check's key, shipped to every pod
                arguments("account of 257 bytes", null, 10, 10, null, "account_id"),
                arguments("account with a control character", null, 10, 10, null, "account_id"),
                arguments("rule id with a NUL", "r\\u0000", 10, 10, null, "rule_id"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badOverrides")
    void refusesABadOverrideBeforeStoringAnything(String why, String ruleId, Integer rate, Integer burst, String expiresAt, String field) {
        String id = uniqueId("r");
        api.put("/v1/rules/" + id, Api.json("{'domain':'d','match':{'plan':'p'},'algorithm':'token_bucket','rate_per_s':10,"
                + "'burst':10,'max_cost':4}"));
        String account = switch (why) {
            case "account of 257 bytes" -> "a".repeat(257);
            // JSON escapes: the body carries the escape, Jackson hands the service the character
            case "account with a control character" -> "acct\\u001b[2J";
            default -> uniqueId("acct");
        };
        long revision = storeRevision();

        Api.Response refused = api.post("/v1/overrides", override(account, ruleId == null ? id : ruleId, rate, burst, expiresAt));

        assertProblem(refused, 422, "invalid_rule");
        assertThat(refused.json().get("errors").findValuesAsString("field")).contains(field);
        assertThat(api.get("/v1/overrides?rule_id=" + id + "&include_expired=true").json()).isEmpty();
        assertThat(storeRevision()).isEqualTo(revision);
    }

    @Test
    void refusesAnOverrideOfARuleThatIsNotATokenBucket() {
        String id = uniqueId("login");
        api.put("/v1/rules/" + id, Api.json("{'domain':'d','match':{'route':'login'},'algorithm':'sliding_log','limit':5,'window_s':60}"));

        Api.Response refused = api.post("/v1/overrides", override("acct_1", id, 10, 10, null));

        assertProblem(refused, 422, "invalid_rule");
        assertThat(refused.json().get("errors").get(0).get("field").asString()).isEqualTo("rule_id");
    }

    @Test
    void writesListsAndDeletesAnOverride() {
        String id = uniqueId("r");
        api.put("/v1/rules/" + id, tokenBucket("public-api", 100, 200));
        // PostgreSQL keeps microseconds
        String expiry = Instant.now().plusSeconds(3600).truncatedTo(ChronoUnit.MICROS).toString();

        Api.Response created = api.post("/v1/overrides", override("acct_7Q2", id, 25_000, 50_000, expiry));
        Api.Response replaced = api.post("/v1/overrides", override("acct_7Q2", id, 20_000, 40_000, expiry));

        assertThat(created.status).isEqualTo(201);
        assertThat(replaced.status).isEqualTo(200);
        JsonNode listed = api.get("/v1/overrides?account_id=acct_7Q2&rule_id=" + id).json();
        assertThat(listed).hasSize(1);
        assertThat(listed.get(0).get("rate_per_s").asInt()).isEqualTo(20_000);
        assertThat(Instant.parse(listed.get(0).get("expires_at").asString())).isEqualTo(Instant.parse(expiry));
        assertThat(listed.get(0).get("reason").asString()).isEqualTo("launch week");
        assertThat(api.delete("/v1/overrides/acct_7Q2/" + id).status).isEqualTo(204);
        assertProblem(api.delete("/v1/overrides/acct_7Q2/" + id), 404, "not_found");
        assertThat(api.get("/v1/rules/" + id + "/versions").json().findValuesAsString("change"))
                .containsExactly("create", "create", "replace", "delete");
    }

    static String override(String account, String ruleId, Integer rate, Integer burst, String expiresAt) {
        StringBuilder body = new StringBuilder("{'account_id':'" + account + "','rule_id':'" + ruleId + "'");
        if (rate != null) {
            body.append(",'rate_per_s':").append(rate);
        }
        if (burst != null) {
            body.append(",'burst':").append(burst);
        }
        if (expiresAt != null) {
            body.append(",'expires_at':'").append(expiresAt).append("'");
        }
        return Api.json(body.append(",'reason':'launch week'}").toString());
    }
}
