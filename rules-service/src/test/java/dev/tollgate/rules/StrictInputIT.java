package dev.tollgate.rules;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import static dev.tollgate.rules.RuleApiIT.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * The rules API reads its input strictly: a body that is not exactly a rule is a 400 naming the field,
 * a body past 64 KiB is a 413, and text PostgreSQL would refuse never reaches it.
 */
class StrictInputIT extends ServiceTestBase {

    private static final String RULE = "'domain':'d','match':{'plan':'p'},'algorithm':'token_bucket'";

    static Stream<Arguments> unreadableRules() {
        return Stream.of(
                arguments("a key given twice", "{" + RULE + ",'rate_per_s':10,'burst':10,'burst':1000000}", "burst",
                        "appears more than once in the same object"),
                arguments("a key given twice, nested", "{" + RULE.replace("{'plan':'p'}", "{'plan':'p','plan':'q'}") + ",'rate_per_s':10,'burst':10}",
                        "match.plan", "appears more than once in the same object"),
                arguments("a number as a string", "{" + RULE + ",'rate_per_s':'10','burst':10}", "rate_per_s", "must be a whole number"),
                arguments("a fraction", "{" + RULE + ",'rate_per_s':10.5,'burst':10}", "rate_per_s", "must be a whole number"),
                arguments("a number beyond int", "{" + RULE + ",'rate_per_s':10000000000,'burst':10}", "rate_per_s", "is out of range"),
                arguments("a huge exponent", "{" + RULE + ",'rate_per_s':1e999999999,'burst':10}", "rate_per_s", "must be a whole number"),
                arguments("a boolean for a number", "{" + RULE + ",'rate_per_s':true,'burst':10}", "rate_per_s", "must be a whole number"),
                arguments("a number for a string", "{'domain':7,'match':{'plan':'p'},'algorithm':'token_bucket','rate_per_s':10,'burst':10}",
                        "domain", "must be a string"),
                arguments("an array for a string", "{'domain':['d'],'match':{'plan':'p'},'algorithm':'token_bucket','rate_per_s':10,'burst':10}",
                        "domain", "must be a string"),
                arguments("an unknown field, nested", "{" + RULE.replace("{'plan':'p'}", "{'plan':'p','tier':'gold'}") + ",'rate_per_s':10,'burst':10}",
                        "match.tier", "is not a field of this request"),
                arguments("a string for an object", "{'domain':'d','match':'growth','algorithm':'token_bucket','rate_per_s':10,'burst':10}",
                        "match", "must be an object"),
                arguments("trailing tokens", "{" + RULE + ",'rate_per_s':10,'burst':10} {}", "", "is followed by more than one JSON value"),
                // Jackson's stream limits say neither where nor what: the field cannot be named
                arguments("a 2,000-digit number", "{" + RULE + ",'rate_per_s':1" + "0".repeat(2_000) + ",'burst':10}", "",
                        "exceeds what a request may hold (nesting, number or name length)"),
                // reading stops at the first token of the wrong type, long before the nesting limit
                arguments("deep nesting", "{'domain':" + "[".repeat(5_000) + "]".repeat(5_000) + "}", "domain", "must be a string"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("unreadableRules")
    void aRuleThatIsNotExactlyARuleIsA400NamingTheField(String why, String body, String field, String message) {
        String id = uniqueId("strict");

        Api.Response refused = api.put("/v1/rules/" + id, Api.json(body));

        assertProblem(refused, 400, "bad_request");
        assertThat(refused.json().get("errors").get(0).get("field").asString()).isEqualTo(field);
        assertThat(refused.json().get("errors").get(0).get("message").asString()).isEqualTo(message);
        assertThat(refused.body).hasSizeLessThan(1_000);
        assertThat(api.get("/v1/rules/" + id).status).isEqualTo(404);
    }

    @Test
    void anOverrideWithAStringForANumberIsA400NamingTheField() {
        Api.Response refused = api.post("/v1/overrides", Api.json("{'account_id':'a','rule_id':'r','rate_per_s':'5','burst':5}"));

        assertProblem(refused, 400, "bad_request");
        assertThat(refused.json().get("errors").get(0).get("field").asString()).isEqualTo("rate_per_s");
    }

    @Test
    void anOverrideWithAnExpiryThatIsNotAnInstantIsA400() {
        Api.Response refused = api.post("/v1/overrides", Api.json("{'account_id':'a','rule_id':'r','rate_per_s':5,'burst':5,'expires_at':'soon'}"));

        assertProblem(refused, 400, "bad_request");
        assertThat(refused.json().get("errors").get(0).get("field").asString()).isEqualTo("expires_at");
    }

    /** Instants Java can hold but PostgreSQL cannot ({@code +999999999-12-31} failed the insert as a 500), or that Jackson reads oddly. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"\"+999999999-12-31T23:59:59Z\"", "\"-999999999-01-01T00:00:00Z\"", "\"294277-01-01T00:00:00Z\"", "1e2147483647",
            "1e999999999", "-1e999999999", "9223372036854775807", "\"2099-01-01T00:00:00.123456789Z\""})
    void anExpiryOutsideWhatTheStoreHoldsIsNeverA500(String expiry) {
        String id = uniqueId("r");
        api.put("/v1/rules/" + id, tokenBucket("public-api", 10, 10));

        Api.Response answer = api.post("/v1/overrides", "{\"account_id\":\"acct_exp\",\"rule_id\":\"" + id
                + "\",\"rate_per_s\":5,\"burst\":10,\"expires_at\":" + expiry + "}");

        assertThat(answer.status).as(answer.toString()).isBetween(200, 499);
        if (answer.status >= 400) {
            assertThat(answer.json().get("code").asString()).as(answer.toString()).isIn("bad_request", "invalid_rule");
        }
    }

    @Test
    void anExpiryPastTheYear9999IsA422NamingTheField() {
        String id = uniqueId("r");
        api.put("/v1/rules/" + id, tokenBucket("public-api", 10, 10));

        Api.Response answer = api.post("/v1/overrides", "{\"account_id\":\"acct_exp\",\"rule_id\":\"" + id
                + "\",\"rate_per_s\":5,\"burst\":10,\"expires_at\":\"+999999999-12-31T23:59:59Z\"}");

        assertProblem(answer, 422, "invalid_rule");
        assertThat(answer.json().get("errors").get(0).get("field").asString()).isEqualTo("expires_at");
    }

    @Test
    void aLongBodyIdIsNotEchoed() {
        Api.Response answer = api.put("/v1/rules/" + uniqueId("r"), Api.json("{'id':'" + "x".repeat(50_000) + "','domain':'d',"
                + "'match':{'plan':'p'},'algorithm':'token_bucket','rate_per_s':1,'burst':1}"));

        assertProblem(answer, 422, "invalid_rule");
        assertThat(answer.body).hasSizeLessThan(1_000);
    }

    @Test
    void aBodyDeclaredOverSixtyFourKibIsRefusedBeforeItIsRead() {
        String id = uniqueId("big");
        String body = Api.json("{" + RULE + ",'rate_per_s':10,'burst':10,'reason':'" + "r".repeat(70_000) + "'}");

        Api.Response refused = api.put("/v1/rules/" + id, body);

        assertProblem(refused, 413, "payload_too_large");
        assertThat(api.get("/v1/rules/" + id).status).isEqualTo(404);
    }

    @Test
    void aChunkedBodyOverSixtyFourKibIsCutOffWhileItIsRead() throws Exception {
        String id = uniqueId("chunked");
        byte[] body = Api.json("{" + RULE + ",'rate_per_s':10,'burst':10,'reason':'" + "r".repeat(70_000) + "'}").getBytes(StandardCharsets.UTF_8);
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/rules/" + id))
                .header("Authorization", "Bearer " + TestTokens.all("alice"))
                .header("Content-Type", "application/json")
                // an input stream publisher has no length: the client sends it chunked
                .PUT(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body)))
                .timeout(Duration.ofSeconds(10))
                .build();

        HttpResponse<String> answer = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(413);
        assertThat(answer.body()).contains("\"code\":\"payload_too_large\"");
        assertThat(api.get("/v1/rules/" + id).status).isEqualTo(404);
    }

    @Test
    void aBodyJustUnderTheCapIsRead() {
        String id = uniqueId("padded");
        // 60 KiB of whitespace around a rule is still a rule
        String body = " ".repeat(60 * 1024) + tokenBucket("public-api", 10, 10);

        Api.Response created = api.put("/v1/rules/" + id, body);

        assertThat(created.status).as(created.toString()).isEqualTo(201);
    }

    /** PostgreSQL refuses a NUL in a text parameter, Tomcat text that is not UTF-8: either is a 4xx with a problem. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
            "GET /v1/rules?domain=d%00",
            "GET /v1/overrides?account_id=a%00",
            "GET /v1/overrides?rule_id=r%00",
            "DELETE /v1/rules/r?reason=why%00",
            "DELETE /v1/overrides/a/r?reason=why%00",
            "GET /v1/keys/k/usage?domain=d%00",
            // not UTF-8 at all: Tomcat's parameter decoding failed as a 500
            "DELETE /v1/overrides/a/r?reason=%E2%82",
            "GET /v1/rules?domain=%FF%FE",
            "GET /v1/overrides?account_id=%C0%80"})
    void aNulOrBrokenUtf8InAParameterIsA4xxWithACode(String call) {
        String[] parts = call.split(" ", 2);

        Api.Response answer = api.request(parts[0], parts[1]).send();

        assertThat(answer.status).as(answer.toString()).isBetween(400, 499);
        assertThat(answer.json().get("code").asString()).as(answer.toString()).isIn("bad_request", "invalid_rule", "not_found");
    }

    /** Spring's body reader threw a bare IllegalArgumentException for a wildcard Content-Type: a 500. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"application/*", "*/*", "*/json"})
    void aWildcardContentTypeIsA415(String type) throws Exception {
        for (String call : List.of("POST /v1/rules/fz:shadow", "PUT /v1/rules/fz", "POST /v1/overrides")) {
            String[] parts = call.split(" ", 2);
            for (String body : List.of("", "{}")) {
                HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + parts[1]))
                        .header("Authorization", "Bearer " + TestTokens.all("alice"))
                        .header("Content-Type", type)
                        .method(parts[0], HttpRequest.BodyPublishers.ofString(body))
                        .timeout(Duration.ofSeconds(10))
                        .build();

                HttpResponse<String> answer = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());

                assertThat(answer.statusCode()).as(call + " " + answer.body()).isEqualTo(415);
                assertThat(answer.body()).as(call).contains("\"code\":\"unsupported_media_type\"");
            }
        }
    }

    /** No endpoint takes multipart or a form: neither is parsed (multipart once failed as a 500), and neither gets past the body cap. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"multipart/form-data", "multipart/form-data; boundary=x", "application/x-www-form-urlencoded"})
    void aMultipartOrFormBodyIsRefusedWithACode(String type) throws Exception {
        for (String call : List.of("PATCH /v1/rules/fz", "PUT /v1/rules/fz", "POST /v1/overrides", "DELETE /v1/rules/fz")) {
            String[] parts = call.split(" ", 2);
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + parts[1]))
                    .header("Authorization", "Bearer " + TestTokens.all("alice"))
                    .header("Content-Type", type)
                    .method(parts[0], HttpRequest.BodyPublishers.ofString("--x\r\n\r\nreason=" + "r".repeat(70_000)))
                    .timeout(Duration.ofSeconds(10))
                    .build();

            HttpResponse<String> answer = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());

            assertThat(answer.statusCode()).as(call + " " + answer.body()).isBetween(400, 499);
            assertThat(answer.body()).as(call).contains("\"code\":\"");
        }
    }

    /** Tomcat itself refuses a NUL in the path (400, its own page) before the application sees it: never a 500. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"GET /v1/rules/r%00", "GET /v1/rules/r%00/versions", "DELETE /v1/overrides/a%00/r", "POST /v1/rules/r%00:shadow",
            "GET /v1/keys/k%00/usage"})
    void aNulInThePathIsRefusedBeforeTheApplication(String call) {
        String[] parts = call.split(" ", 2);

        Api.Response answer = api.request(parts[0], parts[1]).send();

        assertThat(answer.status).as(answer.toString()).isEqualTo(400);
    }

    @Test
    void anIdThatNoRuleCouldHaveIsA404WithoutAskingTheStore() {
        assertProblem(api.get("/v1/rules/" + "x".repeat(65)), 404, "not_found");
        assertProblem(api.get("/v1/rules/a%7Bb%7D/versions"), 404, "not_found");
        assertProblem(api.delete("/v1/overrides/" + "a".repeat(257) + "/r"), 404, "not_found");
    }

    @Test
    void aReasonWithAControlCharacterIsRefusedOnEveryWrite() {
        String id = uniqueId("r");
        api.put("/v1/rules/" + id, tokenBucket("public-api", 10, 10));

        Api.Response shadow = api.request("POST", "/v1/rules/" + id + ":shadow").body("{\"reason\":\"a\\u0007b\"}").send();
        Api.Response delete = api.request("DELETE", "/v1/rules/" + id + "?reason=" + "r".repeat(1_001)).ifMatch(1).send();

        assertProblem(shadow, 422, "invalid_rule");
        assertThat(shadow.json().get("errors").get(0).get("field").asString()).isEqualTo("reason");
        assertProblem(delete, 422, "invalid_rule");
        assertThat(api.get("/v1/rules/" + id).json().get("mode").asString()).isEqualTo("enforce");
    }
}
