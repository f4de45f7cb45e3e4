package dev.tollgate.rules;

import dev.tollgate.store.RedisCounterStore;
import dev.tollgate.store.RedisStoreSettings;
import dev.tollgate.store.key.UsageKeys;
import dev.tollgate.testsupport.redis.RedisCluster;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

/**
 * A rule's canary rollout through the API: written beside the rule (which stays as it is), read at its own version,
 * promoted or rolled back under If-Match, each step in the rule's history; every refusal a problem with its code;
 * the watch feed carrying canaries as it carries rules; and the denies the pods report by version, side by side.
 */
class RuleCanaryIT extends ServiceTestBase {

    @Test
    void aCanaryIsWrittenBesideTheRuleAtAVersionOfItsOwnAndAudited() {
        String id = created();

        Api.Response canary = putCanary(id, 1, tokenBucket("public-api", 300, 600));

        assertThat(canary.status).as(canary.body).isEqualTo(201);
        assertThat(canary.etag()).isEqualTo("\"2\"");
        assertThat(canary.header("Location")).contains("/v1/rules/" + id + "/canary");
        assertThat(canary.json().get("rate_per_s").asInt()).isEqualTo(300);
        assertThat(canary.json().get("base_version").asLong()).isEqualTo(1);
        Api.Response rule = api.get("/v1/rules/" + id);
        assertThat(rule.etag()).as("the rule stays as it is for every other pod").isEqualTo("\"1\"");
        assertThat(rule.json().get("rate_per_s").asInt()).isEqualTo(100);
        Api.Response read = api.get("/v1/rules/" + id + "/canary");
        assertThat(read.status).isEqualTo(200);
        assertThat(read.etag()).isEqualTo("\"2\"");
        assertThat(read.json().get("version").asLong()).isEqualTo(2);
        assertThat(read.json().get("written_at").asString()).isNotBlank();
        JsonNode written = last(history(id));
        assertThat(written.get("change").asString()).isEqualTo("canary");
        assertThat(written.get("changed_by").asString()).isEqualTo("alice");
        assertThat(written.get("reason").asString()).isEqualTo("try it on the canaries");
        assertThat(written.get("old_version").asLong()).isEqualTo(1);
        assertThat(written.get("new_version").asLong()).isEqualTo(2);
        assertThat(written.get("new_value").get("rate_per_s").asInt()).isEqualTo(300);
    }

    @Test
    void aPromoteMakesTheCanaryTheRuleAtItsVersion() {
        String id = created();
        putCanary(id, 1, tokenBucket("public-api", 300, 600));

        Api.Response promoted = api.request("POST", "/v1/rules/" + id + ":promote").ifMatch(2)
                .body(Api.json("{'reason':'the canaries held'}")).send();

        assertThat(promoted.status).as(promoted.body).isEqualTo(200);
        assertThat(promoted.etag()).isEqualTo("\"2\"");
        assertThat(promoted.json().get("rate_per_s").asInt()).isEqualTo(300);
        assertThat(api.get("/v1/rules/" + id).json().get("burst").asInt()).isEqualTo(600);
        assertNoCanary(api.get("/v1/rules/" + id + "/canary"));
        JsonNode entry = last(history(id));
        assertThat(entry.get("change").asString()).isEqualTo("promote");
        assertThat(entry.get("reason").asString()).isEqualTo("the canaries held");
        assertThat(entry.get("old_version").asLong()).isEqualTo(1);
        assertThat(entry.get("new_version").asLong()).isEqualTo(2);
        // and the rule changes as any rule again
        assertThat(api.request("PUT", "/v1/rules/" + id).ifMatch(2).body(tokenBucket("public-api", 50, 600)).send().etag()).isEqualTo("\"3\"");
    }

    @Test
    void aRollbackDropsTheCanaryAndTheNextCanaryHasAVersionNoBodyHadBefore() {
        String id = created();
        putCanary(id, 1, tokenBucket("public-api", 300, 600));

        Api.Response rolledBack = api.request("POST", "/v1/rules/" + id + ":rollback").ifMatch(2).send();

        assertThat(rolledBack.status).as(rolledBack.body).isEqualTo(200);
        assertThat(rolledBack.etag()).as("the rule as it stays").isEqualTo("\"1\"");
        assertThat(rolledBack.json().get("rate_per_s").asInt()).isEqualTo(100);
        assertNoCanary(api.get("/v1/rules/" + id + "/canary"));
        JsonNode entry = last(history(id));
        assertThat(entry.get("change").asString()).isEqualTo("rollback");
        assertThat(entry.get("old_version").asLong()).isEqualTo(2);
        assertThat(entry.get("new_version").asLong()).isEqualTo(1);

        Api.Response second = putCanary(id, 1, tokenBucket("public-api", 200, 400));
        assertThat(second.etag()).as("version 2 was the canary rolled back").isEqualTo("\"3\"");
        Api.Response stale = api.request("POST", "/v1/rules/" + id + ":promote").ifMatch(2).send();
        assertThat(stale.status).as("the canary read before is not this one").isEqualTo(409);
        assertThat(stale.json().get("code").asString()).isEqualTo("version_conflict");
        assertThat(stale.json().get("current_version").asLong()).isEqualTo(3);
        Api.Response promoted = api.request("POST", "/v1/rules/" + id + ":promote").ifMatch(3).send();
        assertThat(promoted.etag()).isEqualTo("\"3\"");
        assertThat(promoted.json().get("rate_per_s").asInt()).isEqualTo(200);
    }

    @Test
    void aRuleWithACanaryChangesByItsPromoteOrRollbackOnly() {
        String id = created();
        putCanary(id, 1, tokenBucket("public-api", 300, 600));

        List<Api.Response> refused = List.of(
                putCanary(id, 1, tokenBucket("public-api", 400, 800)),
                api.request("PUT", "/v1/rules/" + id).ifMatch(1).body(tokenBucket("public-api", 50, 100)).send(),
                api.request("POST", "/v1/rules/" + id + ":shadow").ifMatch(1).send(),
                api.request("DELETE", "/v1/rules/" + id).ifMatch(1).send());

        for (Api.Response response : refused) {
            assertThat(response.status).as(response.body).isEqualTo(409);
            assertThat(response.json().get("code").asString()).isEqualTo("canary_pending");
            assertThat(response.json().get("detail").asString()).contains(":promote or :rollback");
        }
        assertThat(api.get("/v1/rules/" + id).json().get("rate_per_s").asInt()).isEqualTo(100);
        assertThat(api.get("/v1/rules/" + id + "/canary").json().get("rate_per_s").asInt()).isEqualTo(300);
    }

    @Test
    void aRulesAsCodeApplyThatChangesARuleWithACanaryIsRefusedWhole() {
        String domain = uniqueId("code");
        String id = domain + ".growth";
        api.put("/v1/rules/" + id, tokenBucket(domain, 100, 200));
        putCanary(id, 1, tokenBucket(domain, 300, 600));
        String file = "domain: " + domain + "\nrules:\n  - id: " + id + "\n    match:\n      plan: growth\n    algorithm: token_bucket\n"
                + "    rate_per_s: 150\n    burst: 200\n";

        Api.Response applied = api.request("POST", "/v1/config:apply").body(file, "application/yaml").send();

        assertThat(applied.status).as(applied.body).isEqualTo(409);
        assertThat(applied.json().get("code").asString()).isEqualTo("canary_pending");
        assertThat(api.get("/v1/rules/" + id).json().get("rate_per_s").asInt()).isEqualTo(100);
    }

    @Test
    void aPromoteOrRollbackNeedsTheCanarysVersionAndACanary() {
        String id = created();

        assertNoCanary(api.request("POST", "/v1/rules/" + id + ":promote").ifMatch(1).send());
        assertNoCanary(api.request("POST", "/v1/rules/" + id + ":rollback").ifMatch(1).send());
        assertNoCanary(api.get("/v1/rules/" + id + "/canary"));
        for (Api.Response unknown : List.of(api.get("/v1/rules/no-such-rule/canary"), putCanary("no-such-rule", 1, tokenBucket("public-api", 1, 1)),
                api.request("POST", "/v1/rules/no-such-rule:promote").ifMatch(1).send())) {
            assertThat(unknown.status).as(unknown.body).isEqualTo(404);
            assertThat(unknown.json().get("code").asString()).isEqualTo("not_found");
        }

        putCanary(id, 1, tokenBucket("public-api", 300, 600));
        for (String verb : List.of("promote", "rollback")) {
            Api.Response bare = api.request("POST", "/v1/rules/" + id + ":" + verb).send();
            assertThat(bare.status).as(bare.body).isEqualTo(428);
            assertThat(bare.json().get("code").asString()).isEqualTo("precondition_required");
            Api.Response ruleVersion = api.request("POST", "/v1/rules/" + id + ":" + verb).ifMatch(1).send();
            assertThat(ruleVersion.status).as("the rule's version is not the canary's").isEqualTo(409);
            assertThat(ruleVersion.json().get("code").asString()).isEqualTo("version_conflict");
        }
        assertThat(api.get("/v1/rules/" + id + "/canary").status).isEqualTo(200);
    }

    @Test
    void aCanaryIsWrittenUnderIfMatchOnTheRulesVersion() {
        String id = created();

        Api.Response bare = api.request("PUT", "/v1/rules/" + id + "?rollout=canary").body(tokenBucket("public-api", 300, 600)).send();
        assertThat(bare.status).isEqualTo(428);
        assertThat(bare.json().get("code").asString()).isEqualTo("precondition_required");

        api.request("PUT", "/v1/rules/" + id).ifMatch(1).body(tokenBucket("public-api", 150, 300)).send();
        Api.Response stale = putCanary(id, 1, tokenBucket("public-api", 300, 600));
        assertThat(stale.status).isEqualTo(409);
        assertThat(stale.json().get("code").asString()).isEqualTo("version_conflict");
        assertThat(stale.json().get("current_version").asLong()).isEqualTo(2);

        Api.Response rollout = api.request("PUT", "/v1/rules/" + id + "?rollout=everywhere").ifMatch(2).body(tokenBucket("public-api", 300, 600)).send();
        assertThat(rollout.status).isEqualTo(400);
        assertThat(rollout.json().get("code").asString()).isEqualTo("bad_request");
        assertNoCanary(api.get("/v1/rules/" + id + "/canary"));
    }

    @Test
    void aCanaryIsJudgedAsAReplacementOfItsRuleIs() {
        String id = created();
        api.post("/v1/overrides", ValidationIT.override("acct_1", id, 10, 20, null));

        List<Api.Response> refused = new ArrayList<>();
        refused.add(putCanary(id, 1, tokenBucket("public-api", 300, 0)));
        refused.add(putCanary(id, 1, tokenBucket("public-api", 100, 200)));
        refused.add(putCanary(id, 1, tokenBucket("another-domain", 300, 600)));
        // the override's burst of 20 is below a max_cost of 50
        refused.add(putCanary(id, 1, Api.json("{'domain':'public-api','match':{'plan':'growth'},'algorithm':'token_bucket',"
                + "'rate_per_s':300,'burst':600,'max_cost':50}")));

        assertThat(refused).extracting(response -> response.status).containsOnly(422);
        assertThat(refused).extracting(response -> response.json().get("code").asString()).containsOnly("invalid_rule");
        assertThat(refused).extracting(response -> response.json().get("errors").get(0).get("field").asString())
                .containsExactly("burst", "rule", "domain", "overrides[acct_1].burst");
        assertNoCanary(api.get("/v1/rules/" + id + "/canary"));
    }

    @Test
    void anOverrideMustFitTheCanaryToo() {
        String id = created();
        putCanary(id, 1, Api.json("{'domain':'public-api','match':{'plan':'growth'},'algorithm':'token_bucket',"
                + "'rate_per_s':300,'burst':600,'max_cost':50}"));

        Api.Response override = api.post("/v1/overrides", ValidationIT.override("acct_1", id, 10, 20, null));

        assertThat(override.status).as(override.body).isEqualTo(422);
        assertThat(override.json().get("code").asString()).isEqualTo("invalid_rule");
        assertThat(override.json().get("errors").get(0).get("message").asString()).contains("canary");
    }

    @Test
    void aRuleMovedUnderItsCanaryByAnotherWriterIsNotPromotedOver() {
        String id = created();
        putCanary(id, 1, tokenBucket("public-api", 300, 600));
        jdbc.sql("UPDATE rules SET burst = 250, version = 5 WHERE rule_id = ?").param(id).update();

        Api.Response promote = api.request("POST", "/v1/rules/" + id + ":promote").ifMatch(2).send();

        assertThat(promote.status).as(promote.body).isEqualTo(409);
        assertThat(promote.json().get("code").asString()).isEqualTo("version_conflict");
        assertThat(api.get("/v1/rules/" + id).json().get("burst").asInt()).isEqualTo(250);
        assertThat(api.request("POST", "/v1/rules/" + id + ":rollback").ifMatch(2).send().status).as("a rollback is always safe").isEqualTo(200);
    }

    @Test
    void theWatchFeedCarriesCanariesAndTheirGoing() {
        String id = created();
        long before = storeRevision();
        created();
        awaitFeedAt(storeRevision());
        JsonNode plain = api.get("/v1/watch?since=" + before + "&region=us-east").json();
        assertThat(plain.get("rules")).hasSize(1);
        assertThat(plain.has("canaries")).as("none: left out, so a delta without canaries keeps its bytes").isFalse();
        assertThat(plain.get("deleted").has("canaries")).isFalse();

        before = storeRevision();
        putCanary(id, 1, tokenBucket("public-api", 300, 600));
        JsonNode written = awaitFeedAt(storeRevision());
        JsonNode delta = api.get("/v1/watch?since=" + before + "&region=us-east").json();
        assertThat(delta.get("kind").asString()).isEqualTo("delta");
        assertThat(delta.get("rules")).as("the rule did not change").isEmpty();
        assertThat(delta.get("canaries")).hasSize(1);
        assertThat(delta.get("canaries").get(0).get("id").asString()).isEqualTo(id);
        assertThat(delta.get("canaries").get(0).get("version").asLong()).isEqualTo(2);
        assertThat(WatchIT.find(written.get("canaries"), "id", id).get("rate_per_s").asInt()).as("and the snapshot").isEqualTo(300);

        long held = storeRevision();
        api.request("POST", "/v1/rules/" + id + ":rollback").ifMatch(2).send();
        awaitFeedAt(storeRevision());
        JsonNode gone = api.get("/v1/watch?since=" + held + "&region=us-east").json();
        assertThat(gone.get("rules")).isEmpty();
        assertThat(gone.get("deleted").get("canaries")).hasSize(1);
        assertThat(gone.get("deleted").get("canaries").get(0).asString()).isEqualTo(id);
    }

    @Test
    void answersTheDenyRatesOfTheCanaryAndOfThePromotedVersionSideBySideAsThePodsReportThem() {
        String id = created();
        assertNoCanary(api.get("/v1/rules/" + id + "/canary/rates"));
        putCanary(id, 1, Api.json("{'domain':'public-api','match':{'plan':'growth'},'algorithm':'token_bucket',"
                + "'rate_per_s':300,'burst':600,'mode':'shadow'}"));

        // as the pods' usage recorders flush them (UsageRecorderTest holds them to this layout): the other pods deny by
        // version 1, the canary pods' version 2, in shadow, would have denied
        try (RedisCounterStore redis = RedisCounterStore.connect(RedisStoreSettings.of(RedisCluster.shared().seedUris())
                .withCommandTimeout(Duration.ofSeconds(2)))) {
            String window = UsageKeys.versionDenies(UsageKeys.windowStart(System.currentTimeMillis()));
            redis.connection().sync().hincrby(window, UsageKeys.denialField(id, 1, false), 40);
            redis.connection().sync().hincrby(window, UsageKeys.denialField(id, 2, true), 6);
            redis.connection().sync().hincrby(UsageKeys.versionDenies(UsageKeys.windowStart(System.currentTimeMillis()) - UsageKeys.WINDOW_SECONDS),
                    UsageKeys.denialField(id, 1, false), 2);
        }
        Api.Response answer = api.get("/v1/rules/" + id + "/canary/rates");

        assertThat(answer.status).as(answer.body).isEqualTo(200);
        JsonNode rates = answer.json();
        double over = rates.get("over_s").asDouble();
        assertThat(over).as("the closed windows held and the open one").isBetween(30.0, 40.0);
        JsonNode promoted = rates.get("promoted");
        assertThat(promoted.get("version").asLong()).isEqualTo(1);
        assertThat(promoted.get("mode").asString()).isEqualTo("enforce");
        assertThat(promoted.get("deny_per_s").asDouble() * over).isCloseTo(42.0, offset(0.001));
        assertThat(promoted.get("shadow_deny_per_s").asDouble()).isZero();
        JsonNode canary = rates.get("canary");
        assertThat(canary.get("version").asLong()).isEqualTo(2);
        assertThat(canary.get("mode").asString()).isEqualTo("shadow");
        assertThat(canary.get("shadow_deny_per_s").asDouble() * over).isCloseTo(6.0, offset(0.001));
        assertThat(canary.get("deny_per_s").asDouble()).isZero();
    }

    private String created() {
        String id = uniqueId("canaried");
        Api.Response created = api.put("/v1/rules/" + id, tokenBucket("public-api", 100, 200));
        assertThat(created.status).as(created.body).isEqualTo(201);
        return id;
    }

    private Api.Response putCanary(String id, long ifMatch, String body) {
        String withReason = body.substring(0, body.length() - 1) + ",\"reason\":\"try it on the canaries\"}";
        return api.request("PUT", "/v1/rules/" + id + "?rollout=canary").ifMatch(ifMatch).body(withReason).send();
    }

    private JsonNode history(String id) {
        return api.get("/v1/rules/" + id + "/versions").json();
    }

    private static JsonNode last(JsonNode entries) {
        return entries.get(entries.size() - 1);
    }

    private static void assertNoCanary(Api.Response response) {
        assertThat(response.status).as(response.body).isEqualTo(404);
        assertThat(response.json().get("code").asString()).isEqualTo("no_canary");
    }

    /** The region's snapshot once the feed serves {@code revision}, so that a delta from before it is built at it. */
    private JsonNode awaitFeedAt(long revision) {
        for (int i = 0; i < 100; i++) {
            JsonNode snapshot = api.get("/v1/watch?region=us-east").json();
            if (snapshot.get("revision").asLong() >= revision) {
                return snapshot;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
        throw new AssertionError("the feed never served revision " + revision);
    }
}
