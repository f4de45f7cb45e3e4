package dev.tollgate.rules;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class RuleApiIT extends ServiceTestBase {

    @Test
    void createsARuleWithVersionOneAndReadsItBackWithItsEtag() {
        String id = uniqueId("growth-global");

        Api.Response created = api.put("/v1/rules/" + id, tokenBucket("public-api", 100, 200));

        assertThat(created.status).isEqualTo(201);
        assertThat(created.etag()).isEqualTo("\"1\"");
        assertThat(created.header("Location")).contains("/v1/rules/" + id);
        Api.Response read = api.get("/v1/rules/" + id);
        assertThat(read.status).isEqualTo(200);
        assertThat(read.etag()).isEqualTo("\"1\"");
        JsonNode rule = read.json();
        assertThat(rule.get("id").asString()).isEqualTo(id);
        assertThat(rule.get("algorithm").asString()).isEqualTo("token_bucket");
        assertThat(rule.get("rate_per_s").asInt()).isEqualTo(100);
        assertThat(rule.get("period_s").asInt()).isEqualTo(1);
        assertThat(rule.get("mode").asString()).isEqualTo("enforce");
        assertThat(rule.get("fail_mode").asString()).isEqualTo("open");
        assertThat(rule.get("max_cost").asInt()).isEqualTo(1);
        assertThat(rule.get("match").get("plan").asString()).isEqualTo("growth");
        assertThat(rule.has("limit")).as("fields of the other algorithms are left out").isFalse();
        assertThat(api.get("/v1/rules").json().findValuesAsString("id")).contains(id);
    }

    @Test
    void aCountAfterRuleIsStoredAndAnsweredWithItsOvershootBound() {
        String id = uniqueId("flood-ip");

        Api.Response created = api.put("/v1/rules/" + id, Api.json("{'domain':'edge','match':{'route':'/'},'identity':'ip',"
                + "'algorithm':'token_bucket','rate_per_s':50,'burst':100,'counting':'after'}"));

        assertThat(created.status).isEqualTo(201);
        JsonNode rule = api.get("/v1/rules/" + id).json();
        assertThat(rule.get("counting").asString()).isEqualTo("after");
        // 50/s over the default 100 ms flush: 5 per pod between flush answers, 10 over the limit per pod at most
        assertThat(rule.get("count_after").get("flush_ms").asLong()).isEqualTo(100);
        assertThat(rule.get("count_after").get("allowance_per_flush").asLong()).isEqualTo(5);
        assertThat(rule.get("count_after").get("overshoot_bound_per_pod").asLong()).isEqualTo(10);
        assertThat(created.json().get("count_after")).as("the write's answer too").isNotNull();
        assertThat(jdbc.sql("SELECT counting FROM rules WHERE rule_id = ?").param(id).query(String.class).single()).isEqualTo("after");

        Api.Response inline = api.request("PUT", "/v1/rules/" + id).ifMatch(1).body(Api.json("{'domain':'edge','match':{'route':'/'},"
                + "'identity':'ip','algorithm':'token_bucket','rate_per_s':50,'burst':100}")).send();
        assertThat(inline.status).isEqualTo(200);
        assertThat(inline.json().get("counting")).as("inline, the default, is left out").isNull();
        assertThat(inline.json().has("count_after")).isFalse();
    }

    @Test
    void replacingWithoutIfMatchIs428() {
        String id = uniqueId("r");
        api.put("/v1/rules/" + id, tokenBucket("public-api", 100, 200));

        Api.Response replaced = api.put("/v1/rules/" + id, tokenBucket("public-api", 50, 200));

        assertThat(replaced.status).isEqualTo(428);
        assertThat(replaced.json().get("code").asString()).isEqualTo("precondition_required");
        assertThat(replaced.header("Content-Type")).hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(api.get("/v1/rules/" + id).json().get("rate_per_s").asInt()).isEqualTo(100);
    }

    @Test
    void replacingWithAStaleVersionIs409AndNamesTheCurrentOne() {
        String id = uniqueId("r");
        api.put("/v1/rules/" + id, tokenBucket("public-api", 100, 200));
        api.request("PUT", "/v1/rules/" + id).ifMatch(1).body(tokenBucket("public-api", 90, 200)).send();

        Api.Response stale = api.request("PUT", "/v1/rules/" + id).ifMatch(1).body(tokenBucket("public-api", 80, 200)).send();

        assertThat(stale.status).isEqualTo(409);
        assertThat(stale.json().get("code").asString()).isEqualTo("version_conflict");
        assertThat(stale.json().get("current_version").asLong()).isEqualTo(2);
        assertThat(api.get("/v1/rules/" + id).json().get("rate_per_s").asInt()).isEqualTo(90);
    }

    @Test
    void replacingWithTheCurrentVersionMakesTheNextVersion() {
        String id = uniqueId("r");
        api.put("/v1/rules/" + id, tokenBucket("public-api", 100, 200));

        Api.Response replaced = api.request("PUT", "/v1/rules/" + id).header("If-Match", "\"1\"")
                .body(tokenBucket("public-api", 150, 300)).send();

        assertThat(replaced.status).isEqualTo(200);
        assertThat(replaced.etag()).isEqualTo("\"2\"");
        assertThat(replaced.json().get("burst").asInt()).isEqualTo(300);
        assertThat(replaced.json().get("version").asLong()).isEqualTo(2);
    }

    @Test
    void replacingWithTheSameRuleChangesNothing() {
        String id = uniqueId("r");
        api.put("/v1/rules/" + id, tokenBucket("public-api", 100, 200));
        long revision = storeRevision();

        Api.Response same = api.request("PUT", "/v1/rules/" + id).ifMatch(1).body(tokenBucket("public-api", 100, 200)).send();

        assertThat(same.status).isEqualTo(200);
        assertThat(same.etag()).isEqualTo("\"1\"");
        assertThat(storeRevision()).isEqualTo(revision);
        assertThat(api.get("/v1/rules/" + id + "/versions").json()).hasSize(1);
    }

    @Test
    void ofConcurrentWritersWithTheSameIfMatchExactlyOneWins() throws Exception {
        String id = uniqueId("contended");
        api.put("/v1/rules/" + id, tokenBucket("public-api", 100, 200));
        int writers = 8;
        CountDownLatch ready = new CountDownLatch(writers);
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            List<CompletableFuture<Api.Response>> replies = new ArrayList<>();
            for (int i = 0; i < writers; i++) {
                int rate = 101 + i;
                replies.add(CompletableFuture.supplyAsync(() -> {
                    Api.Request request = api.request("PUT", "/v1/rules/" + id).ifMatch(1).body(tokenBucket("public-api", rate, 200));
                    ready.countDown();
                    await(go);
                    return request.send();
                }, pool));
            }
            assertThat(ready.await(10, TimeUnit.SECONDS)).isTrue();
            go.countDown();

            List<Integer> statuses = replies.stream().map(CompletableFuture::join).map(r -> r.status).toList();

            assertThat(statuses).containsOnly(200, 409);
            assertThat(statuses).filteredOn(s -> s == 200).hasSize(1);
            JsonNode history = api.get("/v1/rules/" + id + "/versions").json();
            assertThat(history).hasSize(2);
            assertThat(api.get("/v1/rules/" + id).etag()).isEqualTo("\"2\"");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void deletingNeedsTheCurrentVersionAndTakesTheRulesOverridesWithIt() {
        String id = uniqueId("r");
        api.put("/v1/rules/" + id, tokenBucket("public-api", 100, 200));
        api.post("/v1/overrides", Api.json("{'account_id':'acct_1','rule_id':'" + id + "','rate_per_s':500,'burst':1000,'reason':'launch'}"));

        assertThat(api.delete("/v1/rules/" + id).status).isEqualTo(428);
        assertThat(api.request("DELETE", "/v1/rules/" + id).ifMatch(7).send().status).isEqualTo(409);
        Api.Response deleted = api.request("DELETE", "/v1/rules/" + id + "?reason=retired").ifMatch(1).send();

        assertThat(deleted.status).isEqualTo(204);
        assertThat(api.get("/v1/rules/" + id).status).isEqualTo(404);
        assertThat(api.get("/v1/overrides?rule_id=" + id).json()).isEmpty();
        JsonNode history = api.get("/v1/rules/" + id + "/versions").json();
        assertThat(history.findValuesAsString("change")).containsExactly("create", "create", "delete", "delete");
        assertThat(history.get(3).get("entity").asString()).isEqualTo("rule");
        assertThat(history.get(3).get("reason").asString()).isEqualTo("retired");
        assertThat(history.get(2).get("entity").asString()).isEqualTo("override");
    }

    @Test
    void shadowAndEnforceAreCustomMethodsAfterAColon() {
        String id = uniqueId("labels.route");
        api.put("/v1/rules/" + id, tokenBucket("public-api", 100, 200));

        Api.Response shadowed = api.request("POST", "/v1/rules/" + id + ":shadow").body(Api.json("{'reason':'try it first'}")).send();
        Api.Response again = api.request("POST", "/v1/rules/" + id + ":shadow").send();
        Api.Response stale = api.request("POST", "/v1/rules/" + id + ":enforce").ifMatch(1).send();
        Api.Response enforced = api.request("POST", "/v1/rules/" + id + ":enforce").ifMatch(2).send();

        assertThat(shadowed.status).isEqualTo(200);
        assertThat(shadowed.json().get("mode").asString()).isEqualTo("shadow");
        assertThat(shadowed.etag()).isEqualTo("\"2\"");
        assertThat(again.etag()).as("already in shadow: no new version").isEqualTo("\"2\"");
        assertThat(stale.status).isEqualTo(409);
        assertThat(enforced.json().get("mode").asString()).isEqualTo("enforce");
        assertThat(enforced.etag()).isEqualTo("\"3\"");
        JsonNode history = api.get("/v1/rules/" + id + "/versions").json();
        assertThat(history.findValuesAsString("change")).containsExactly("create", "shadow", "enforce");
        assertThat(history.get(1).get("reason").asString()).isEqualTo("try it first");
        assertThat(api.request("POST", "/v1/rules/" + uniqueId("missing") + ":shadow").send().status).isEqualTo(404);
    }

    @Test
    void historyRecordsWhoChangedWhatWithOldAndNewValues() {
        String id = uniqueId("r");
        api.as(TestTokens.all("alice")).put("/v1/rules/" + id, tokenBucket("public-api", 100, 200));
        api.as(TestTokens.all("bob")).request("PUT", "/v1/rules/" + id).ifMatch(1)
                .body(Api.json("{'domain':'public-api','match':{'plan':'growth'},'algorithm':'token_bucket',"
                        + "'rate_per_s':120,'burst':200,'reason':'ticket 42'}")).send();

        JsonNode history = api.get("/v1/rules/" + id + "/versions").json();

        assertThat(history).hasSize(2);
        JsonNode replace = history.get(1);
        assertThat(replace.get("changed_by").asString()).isEqualTo("bob");
        assertThat(replace.get("reason").asString()).isEqualTo("ticket 42");
        assertThat(replace.get("change").asString()).isEqualTo("replace");
        assertThat(replace.get("old_version").asLong()).isEqualTo(1);
        assertThat(replace.get("new_version").asLong()).isEqualTo(2);
        assertThat(replace.get("old_value").get("rate_per_s").asInt()).isEqualTo(100);
        assertThat(replace.get("new_value").get("rate_per_s").asInt()).isEqualTo(120);
        assertThat(replace.get("revision").asLong()).isGreaterThan(history.get(0).get("revision").asLong());
        assertThat(history.get(0).get("changed_by").asString()).isEqualTo("alice");
        assertThat(history.get(0).has("changed_at")).isTrue();
    }

    @Test
    void badInputIsAProblemNeverA500() {
        String id = uniqueId("r");

        Api.Response malformed = api.put("/v1/rules/" + id, "{\"domain\": ");
        Api.Response unknownField = api.put("/v1/rules/" + id, Api.json("{'domain':'d','match':{'plan':'p'},'algorithm':'token_bucket',"
                + "'rate_per_s':1,'burst':1,'max_cots':5}"));
        Api.Response fraction = api.put("/v1/rules/" + id, Api.json("{'domain':'d','match':{'plan':'p'},'algorithm':'token_bucket',"
                + "'rate_per_s':1.5,'burst':1}"));
        Api.Response unknownAlgorithm = api.put("/v1/rules/" + id, Api.json("{'domain':'d','match':{'plan':'p'},'algorithm':'leaky'}"));
        Api.Response noBody = api.request("PUT", "/v1/rules/" + id).header("Content-Type", "application/json").send();
        Api.Response badIfMatch = api.request("PUT", "/v1/rules/" + id).header("If-Match", "yesterday").body(tokenBucket("d", 1, 1)).send();
        Api.Response starIfMatch = api.request("PUT", "/v1/rules/" + id).header("If-Match", "*").body(tokenBucket("d", 1, 1)).send();
        Api.Response badSince = api.get("/v1/watch?since=abc");
        Api.Response missing = api.get("/v1/rules/" + id);
        Api.Response wrongMethod = api.request("PATCH", "/v1/rules/" + id).body("{}").send();
        Api.Response wrongType = api.request("PUT", "/v1/rules/" + id).header("Content-Type", "text/plain").body("x").send();

        assertProblem(malformed, 400, "bad_request");
        assertProblem(unknownField, 400, "bad_request");
        assertThat(unknownField.json().get("detail").asString()).contains("max_cots");
        assertProblem(fraction, 400, "bad_request");
        // a rule that cannot be enforced, named by its field, like the validator's refusals
        assertProblem(unknownAlgorithm, 422, "invalid_rule");
        assertThat(unknownAlgorithm.json().get("errors").get(0).get("field").asString()).isEqualTo("algorithm");
        assertThat(unknownAlgorithm.json().get("errors").get(0).get("message").asString())
                .isEqualTo("must be one of token_bucket, sliding_log, fixed_window");
        assertProblem(noBody, 400, "bad_request");
        assertProblem(badIfMatch, 400, "bad_request");
        assertProblem(starIfMatch, 428, "precondition_required");
        assertProblem(badSince, 400, "bad_request");
        assertProblem(missing, 404, "not_found");
        assertProblem(wrongMethod, 405, "method_not_allowed");
        assertProblem(wrongType, 415, "unsupported_media_type");
        assertThat(api.get("/v1/rules/" + id).status).isEqualTo(404);
    }

    @Test
    void aBodyIdOtherThanThePathIdIs422() {
        String id = uniqueId("r");

        Api.Response mismatch = api.put("/v1/rules/" + id, Api.json("{'id':'other','domain':'d','match':{'plan':'p'},"
                + "'algorithm':'token_bucket','rate_per_s':1,'burst':1}"));

        assertProblem(mismatch, 422, "invalid_rule");
        assertThat(mismatch.json().get("errors").get(0).get("field").asString()).isEqualTo("id");
    }

    @Test
    void aRuleCanBeSentBackAsItWasReadWithOneFieldChanged() {
        String id = uniqueId("r");
        api.put("/v1/rules/" + id, tokenBucket("public-api", 100, 200));
        String read = api.get("/v1/rules/" + id).body;

        Api.Response replaced = api.request("PUT", "/v1/rules/" + id).ifMatch(1).body(read.replace("\"burst\":200", "\"burst\":250")).send();

        assertThat(replaced.status).isEqualTo(200);
        assertThat(replaced.json().get("burst").asInt()).isEqualTo(250);
    }

    static void assertProblem(Api.Response response, int status, String code) {
        assertThat(response.status).as(response.toString()).isEqualTo(status);
        JsonNode problem = response.json();
        assertThat(problem.get("code").asString()).as(response.toString()).isEqualTo(code);
        assertThat(problem.get("status").asInt()).isEqualTo(status);
        assertThat(problem.has("title")).isTrue();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
