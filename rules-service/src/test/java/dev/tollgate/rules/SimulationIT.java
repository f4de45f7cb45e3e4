package dev.tollgate.rules;

import dev.tollgate.store.RedisCounterStore;
import dev.tollgate.store.RedisStoreSettings;
import dev.tollgate.store.key.UsageKeys;
import dev.tollgate.testsupport.redis.RedisCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.time.Duration;

import static dev.tollgate.rules.RuleApiIT.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code :simulate} over checks recorded as the pods' usage recorders write them, on the real cluster. */
class SimulationIT extends ServiceTestBase {

    private static RedisCounterStore engine;

    @BeforeAll
    static void connect() {
        engine = RedisCounterStore.connect(RedisStoreSettings.of(RedisCluster.shared().seedUris()).withCommandTimeout(Duration.ofSeconds(2)));
    }

    @AfterAll
    static void disconnect() {
        engine.close();
    }

    /** What the pods flushed for one rule and key in the {@code windows} windows before the last closed one and it. */
    private static void recorded(String rule, String key, int windows, long checks, long denied, int level) {
        long last = UsageKeys.lastClosedWindow(System.currentTimeMillis(), Duration.ofSeconds(2));
        // the window after too, so that a window closing between here and the read changes nothing
        for (int w = -windows + 1; w <= 1; w++) {
            String hash = UsageKeys.checks(rule, last + (long) w * UsageKeys.WINDOW_SECONDS);
            engine.connection().sync().hincrby(hash, "c:" + key, checks);
            if (denied > 0) {
                engine.connection().sync().hincrby(hash, "d:" + key, denied);
            }
            engine.connection().sync().hincrby(hash, "l:" + level, 1);
            engine.connection().sync().pexpire(hash, UsageKeys.CHECKS_RETENTION.toMillis());
        }
    }

    private static String stricter(String domain, int rate, int burst) {
        return tokenBucket(domain, rate, burst);
    }

    @Test
    void answersWhatAStricterVersionWouldDenyWithItsErrorBoundPerKeyAndWindow() {
        String domain = uniqueId("sim");
        String rule = uniqueId("growth");
        api.put("/v1/rules/" + rule, tokenBucket(domain, 100, 200));
        recorded(rule, "acct_busy", 6, 200, 0, 0);
        recorded(rule, "acct_quiet", 6, 5, 0, 0);

        Api.Response answer = api.post("/v1/rules/" + rule + ":simulate?span=1m", stricter(domain, 5, 10));

        assertThat(answer.status).as(answer.toString()).isEqualTo(200);
        JsonNode sim = answer.json();
        assertThat(sim.get("span").asLong()).isEqualTo(60);
        assertThat(sim.get("windows").asInt()).isEqualTo(6);
        assertThat(sim.get("checks").asLong()).isEqualTo(6 * 205);
        assertThat(sim.get("denied_now").asLong()).isZero();
        assertThat(sim.get("denied_proposed").asLong()).isBetween(6 * 200 - 310 - 1L, 6 * 200 - 310 + 1L);
        assertThat(sim.get("error_bound").asLong()).isEqualTo(10 + 6 * 51);
        assertThat(sim.get("assumption").asString()).contains("evenly");
        assertThat(sim.get("sampling").get("scale").asLong()).isEqualTo(1);
        assertThat(sim.get("keys").get(0).get("key").asString()).isEqualTo("acct_busy");
        assertThat(sim.get("keys").get(1).get("denied_proposed").asLong()).isZero();
        assertThat(sim.get("buckets")).hasSize(6);
        assertThat(sim.get("buckets").get(5).get("checks").asLong()).isEqualTo(205);
    }

    @Test
    void scalesASampledRulesNumbersAndSaysSo() {
        String domain = uniqueId("sim");
        String rule = uniqueId("flood");
        api.put("/v1/rules/" + rule, tokenBucket(domain, 100, 200));
        String sampled = java.util.stream.IntStream.range(0, 1000).mapToObj(i -> "ip-" + i)
                .filter(key -> UsageKeys.sampled(key, 2)).findFirst().orElseThrow();
        String dropped = java.util.stream.IntStream.range(0, 1000).mapToObj(i -> "ip-" + i)
                .filter(key -> !UsageKeys.sampled(key, 2)).findFirst().orElseThrow();
        recorded(rule, sampled, 1, 10, 3, 2);
        // a pod at a lower level wrote a key outside the span's sample: left out, or the total would count it 4 times
        recorded(rule, dropped, 1, 10, 0, 1);

        JsonNode sim = api.post("/v1/rules/" + rule + ":simulate?span=10s", tokenBucket(domain, 100, 200)).json();

        assertThat(sim.get("sampling").get("level").asInt()).isEqualTo(2);
        assertThat(sim.get("sampling").get("scale").asLong()).isEqualTo(4);
        assertThat(sim.get("sampling").get("keys_sampled").asInt()).isEqualTo(1);
        assertThat(sim.get("checks").asLong()).isEqualTo(40);
        assertThat(sim.get("denied_now").asLong()).isEqualTo(12);
    }

    @Test
    void replaysAnotherRulesChecksThroughANewRule() {
        String domain = uniqueId("sim");
        String rule = uniqueId("growth");
        api.put("/v1/rules/" + rule, tokenBucket(domain, 100, 200));
        recorded(rule, "acct_1", 1, 100, 0, 0);

        Api.Response answer = api.post("/v1/rules:simulate?span=10s&checks_of=" + rule, stricter(domain, 1, 10));

        assertThat(answer.status).as(answer.toString()).isEqualTo(200);
        assertThat(answer.json().get("denied_proposed").asLong()).isBetween(79L, 81L);
        assertProblem(api.post("/v1/rules:simulate?span=10s", stricter(domain, 1, 10)), 400, "bad_request");
    }

    @Test
    void refusesABadProposalAnUnknownRuleAndABadSpan() {
        String domain = uniqueId("sim");
        String rule = uniqueId("growth");
        api.put("/v1/rules/" + rule, tokenBucket(domain, 100, 200));

        Api.Response invalid = api.post("/v1/rules/" + rule + ":simulate", Api.json("{'domain':'" + domain
                + "','match':{'plan':'growth'},'algorithm':'token_bucket','rate_per_s':0,'burst':200}"));
        assertProblem(invalid, 422, "invalid_rule");
        assertThat(invalid.json().get("errors").findValuesAsString("field")).contains("rate_per_s");
        assertProblem(api.post("/v1/rules/" + uniqueId("none") + ":simulate", stricter(domain, 1, 10)), 404, "not_found");
        for (String span : new String[] {"5s", "2h", "soon", "-PT1M"}) {
            assertProblem(api.post("/v1/rules/" + rule + ":simulate?span=" + span, stricter(domain, 1, 10)), 400, "bad_request");
        }
        assertProblem(api.post("/v1/rules/" + rule + ":simulate?keys=0", stricter(domain, 1, 10)), 400, "bad_request");
        assertProblem(api.post("/v1/rules/" + rule + ":simulate", "{\"domain\":3}"), 400, "bad_request");
    }

    @Test
    void aReadersTokenMaySimulateButNotWriteThroughAnotherSpelling() {
        String domain = uniqueId("sim");
        String rule = uniqueId("growth");
        api.put("/v1/rules/" + rule, tokenBucket(domain, 100, 200));
        Api reader = api.as(TestTokens.token("rita", TestTokens.READ));

        assertThat(reader.post("/v1/rules/" + rule + ":simulate?span=10s", stricter(domain, 1, 10)).status).isEqualTo(200);
        assertProblem(reader.post("/v1/rules/" + rule + ":shadow", null), 403, "forbidden");
        assertProblem(reader.put("/v1/rules/" + rule, stricter(domain, 1, 10)), 403, "forbidden");
        assertThat(reader.post("/v1/rules/" + rule + "/x:simulate", stricter(domain, 1, 10)).status).isEqualTo(403);
    }
}
