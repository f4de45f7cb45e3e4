package dev.tollgate.rules;

import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.store.script.ScriptCall;
import dev.tollgate.store.script.Spend;
import dev.tollgate.store.script.SpendCall;
import dev.tollgate.store.RedisCounterStore;
import dev.tollgate.store.key.UsageKeys;
import dev.tollgate.store.RedisStoreSettings;
import dev.tollgate.testsupport.redis.RedisCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Usage as the limiter left it: state written by the engine's own scripts on the real cluster, read back by the service. */
class UsageIT extends ServiceTestBase {

    private static RedisCounterStore engine;

    @BeforeAll
    static void connectAsTheEngine() {
        engine = RedisCounterStore.connect(RedisStoreSettings.of(RedisCluster.shared().seedUris()).withCommandTimeout(Duration.ofSeconds(2)));
    }

    @AfterAll
    static void disconnect() {
        engine.close();
    }

    @Test
    void reportsTokensLeftInEachBucketAndAMissingBucketAsFull() {
        String domain = uniqueId("usage");
        String key = uniqueId("acct");
        String slow = uniqueId("slow");
        String untouched = uniqueId("untouched");
        api.put("/v1/rules/" + slow, tokenBucket(domain, 1, 20));
        api.put("/v1/rules/" + untouched, tokenBucket(domain, 10, 30));
        spend(SpendCall.of(key, List.of(new Spend(rule(slow, domain, 1, 20), 1.0, 5)), 1, 1, 0));

        JsonNode usage = usage(api, key, domain);

        assertThat(usage.get("key").asString()).isEqualTo(key);
        assertThat(usage.get("region").asString()).isEqualTo("us-east");
        assertThat(usage.get("limits")).hasSize(2);
        JsonNode spent = WatchIT.find(usage.get("limits"), "rule_id", slow);
        assertThat(spent.get("stored").asBoolean()).isTrue();
        assertThat(spent.get("tokens").asLong()).isBetween(15L, 16L);
        assertThat(spent.get("capacity").asLong()).isEqualTo(20);
        assertThat(spent.get("redis_key").asString()).isEqualTo("rl:{" + key + "}:" + slow);
        JsonNode full = WatchIT.find(usage.get("limits"), "rule_id", untouched);
        assertThat(full.get("stored").asBoolean()).isFalse();
        assertThat(full.get("tokens").asLong()).isEqualTo(30);
        assertThat(full.get("recent_rate_per_s").asDouble()).as("no usage reported").isZero();
    }

    @Test
    void reportsTheRecentRateThePodsReported() {
        String domain = uniqueId("usage");
        String key = uniqueId("acct");
        String busy = uniqueId("busy");
        api.put("/v1/rules/" + busy, tokenBucket(domain, 100, 200));
        // what the pods' usage recorders flushed: 420 admitted in a 10 s window (written to this window and
        // the next, so a window boundary between here and the read cannot change the answer)
        String field = UsageKeys.field(busy, key);
        long window = UsageKeys.lastClosedWindow(System.currentTimeMillis(), Duration.ofSeconds(2));
        for (long start : List.of(window, window + UsageKeys.WINDOW_SECONDS)) {
            engine.connection().sync().hincrby(UsageKeys.window(UsageKeys.shardOf(field), start), field, 420);
        }

        JsonNode limit = WatchIT.find(usage(api, key, domain).get("limits"), "rule_id", busy);
        assertThat(limit.get("recent_rate_per_s").asDouble()).isEqualTo(42.0);
    }

    @Test
    void reportsSlidingLogAndDailyQuotaCounts() {
        String domain = uniqueId("usage");
        String key = "203.0.113.9";
        String login = uniqueId("login");
        String daily = uniqueId("daily");
        api.put("/v1/rules/" + login, Api.json("{'domain':'" + domain + "','match':{'route':'login'},'identity':'ip',"
                + "'algorithm':'sliding_log','limit':5,'window_s':60,'fail_mode':'closed'}"));
        api.put("/v1/rules/" + daily, Api.json("{'domain':'" + domain + "','match':{'plan':'free'},'algorithm':'fixed_window',"
                + "'limit':10000,'window_s':86400,'max_cost':10}"));
        Rule loginRule = Rule.slidingLog(login, domain, 5, 60).withMatch(new Match(null, "login"));
        Rule dailyRule = Rule.fixedWindow(daily, domain, 10000, 86400).withMatch(new Match("free", null)).withMaxCost(10);
        spend(SpendCall.of(key, List.of(new Spend(loginRule, 1.0, 1)), 1, 1, 0));
        spend(SpendCall.of(key, List.of(new Spend(loginRule, 1.0, 1)), 1, 1, 0));
        spend(SpendCall.of(key, List.of(new Spend(dailyRule, 1.0, 3)), 1, 1, System.currentTimeMillis()));

        JsonNode usage = usage(api, key, domain);

        JsonNode log = WatchIT.find(usage.get("limits"), "rule_id", login);
        assertThat(log.get("count").asLong()).isEqualTo(2);
        // a limit on keys the caller chooses (a per-IP log) is not split across regions, so pods report no usage of it:
        // no rate is known, which is not a rate of 0
        assertThat(log.has("recent_rate_per_s")).as("a rate for a log whose usage is not reported").isFalse();
        assertThat(log.get("remaining").asLong()).isEqualTo(3);
        assertThat(log.get("capacity").asLong()).isEqualTo(5);
        JsonNode quota = WatchIT.find(usage.get("limits"), "rule_id", daily);
        assertThat(quota.get("count").asLong()).isEqualTo(3);
        assertThat(quota.get("recent_rate_per_s").asDouble()).isZero();
        assertThat(quota.get("remaining").asLong()).isEqualTo(9997);
        assertThat(quota.get("window").asString()).isEqualTo(LocalDate.now(ZoneOffset.UTC).toString());
        assertThat(quota.get("redis_key").asString()).isEqualTo("q:{" + key + "}:" + daily + ":" + LocalDate.now(ZoneOffset.UTC));
    }

    @Test
    void appliesTheKeysOverrideAndThisRegionsShareAndListsThem() {
        String domain = uniqueId("usage");
        String key = uniqueId("acct");
        String id = uniqueId("growth");
        api.put("/v1/rules/" + id, tokenBucket(domain, 10, 100));
        api.post("/v1/overrides", ValidationIT.override(key, id, 50, 400, null));
        jdbc.sql("INSERT INTO region_budgets (rule_id, limit_key, region, share) VALUES (?, ?, 'us-east', 0.25), (?, ?, 'eu-west', 0.75)")
                .params(id, key, id, key).update();

        JsonNode usage = usage(api, key, domain);

        JsonNode limit = WatchIT.find(usage.get("limits"), "rule_id", id);
        assertThat(limit.get("overridden").asBoolean()).isTrue();
        assertThat(limit.get("share").asDouble()).isEqualTo(0.25);
        assertThat(limit.get("capacity").asLong()).isEqualTo(100);
        assertThat(limit.get("rate_per_s").asInt()).isEqualTo(50);
        assertThat(usage.get("overrides")).hasSize(1);
        assertThat(usage.get("overrides").get(0).get("burst").asInt()).isEqualTo(400);
        assertThat(usage.get("region_budgets").findValuesAsString("region")).containsExactlyInAnyOrder("us-east", "eu-west");
    }

    @Test
    void encodesTheKeyAsTheLimiterDoes() {
        String domain = uniqueId("usage");
        String id = uniqueId("r");
        api.put("/v1/rules/" + id, tokenBucket(domain, 10, 10));

        JsonNode usage = usage(api, "user:{x}", domain);

        assertThat(usage.get("limits").get(0).get("redis_key").asString()).isEqualTo("rl:{user%3A%7Bx%7D}:" + id);
    }

    static JsonNode usage(Api api, String key, String domain) {
        Api.Response response = api.get("/v1/keys/" + URLEncoder.encode(key, StandardCharsets.UTF_8).replace("+", "%20")
                + "/usage?domain=" + domain);
        assertThat(response.status).as(response.toString()).isEqualTo(200);
        return response.json();
    }

    private static Rule rule(String id, String domain, int rate, int burst) {
        return Rule.tokenBucket(id, domain, rate, burst).withMatch(new Match("growth", null));
    }

    private static void spend(ScriptCall call) {
        List<Long> reply = engine.run(call.script(), call.keys(), call.args()).join();
        assertThat(reply.get(0)).as("the spend was admitted").isGreaterThan(0);
    }
}
