package dev.tollgate.rules;

import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.limiter.hotkeys.HotKeysPublisher;
import dev.tollgate.store.RedisCounterStore;
import dev.tollgate.store.RedisStoreSettings;
import dev.tollgate.store.key.RedisKeys;
import dev.tollgate.testsupport.redis.RedisCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static dev.tollgate.rules.RuleApiIT.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fleet's hot keys: two engines, each a pod with its own store connection, registry heartbeat and publisher, check
 * on the shared cluster and publish their tops; rules-service merges what they published.
 */
class HotKeysIT extends ServiceTestBase {

    /** The region ServiceTestBase gives the service. */
    private static final String REGION = "us-east";
    private static final Match GROWTH = new Match("growth", null);

    private final List<AutoCloseable> opened = new ArrayList<>();
    private final Rule rule = Rule.tokenBucket("hot-keys-it", "api", 1_000, 100_000).withMatch(GROWTH);

    @BeforeEach
    void noPodsYet() {
        var redis = engineStore().connection().sync();
        for (String pod : redis.zrange(RedisKeys.podRegistry(REGION), 0, -1)) {
            redis.del(RedisKeys.podHotKeys(REGION, pod));
        }
        redis.del(RedisKeys.podRegistry(REGION));
    }

    @AfterEach
    void stopPods() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        // what the pods left, so that a later test of this JVM (the console's browser test) sees its own pods only
        noPodsYet();
    }

    @Test
    void sumsTheKeysOfEveryPodThatPublishedWithItsPodsSlotAndShare() {
        Pod a = pod("pod-a");
        Pod b = pod("pod-b");
        String hot = uniqueId("acct_hot");
        String warm = uniqueId("acct_warm");
        String onlyOnB = uniqueId("acct_b");
        a.check(hot, 30);
        a.check(warm, 10);
        b.check(hot, 20);
        b.check(onlyOnB, 5);
        a.publish();
        b.publish();

        JsonNode fleet = api.get("/v1/hot-keys").json();

        assertThat(fleet.get("region").asString()).isEqualTo(REGION);
        assertThat(fleet.get("pods_registered").asInt()).isEqualTo(2);
        assertThat(fleet.get("pods_reported").asInt()).isEqualTo(2);
        assertThat(fleet.get("store_calls").asLong()).isEqualTo(65);
        JsonNode first = fleet.get("keys").get(0);
        assertThat(first.get("key").asString()).isEqualTo(hot);
        assertThat(first.get("store_calls").asLong()).isEqualTo(50);
        assertThat(first.get("error").asLong()).isZero();
        assertThat(first.get("pods").asInt()).isEqualTo(2);
        assertThat(first.get("slot").asInt()).isEqualTo(RedisKeys.slot(hot));
        assertThat(first.get("share").asDouble()).isEqualTo(50.0 / 65);
        assertThat(fleet.get("keys").get(1).get("key").asString()).isEqualTo(warm);
        assertThat(fleet.get("keys").get(1).get("pods").asInt()).isEqualTo(1);
        assertThat(fleet.get("keys").get(2).get("key").asString()).isEqualTo(onlyOnB);
        assertThat(fleet.get("keys")).hasSize(3);
        JsonNode hottestSlot = fleet.get("slots").get(0);
        assertThat(hottestSlot.get("slot").asInt()).isEqualTo(RedisKeys.slot(hot));
        assertThat(hottestSlot.get("store_calls").asLong()).isGreaterThanOrEqualTo(50);

        JsonNode one = api.get("/v1/hot-keys?limit=1").json();
        assertThat(one.get("keys")).hasSize(1);
        assertThat(one.get("keys").get(0).get("key").asString()).isEqualTo(hot);
        assertThat(one.get("slots")).hasSize(1);
    }

    @Test
    void aPodsReportAgesOutAfterThreeWindows() {
        Pod a = pod("pod-a");
        a.check(uniqueId("acct"), 3);
        a.publish();

        long ttlMs = engineStore().connection().sync().pttl(RedisKeys.podHotKeys(REGION, "pod-a"));

        assertThat(ttlMs).isPositive().isLessThanOrEqualTo(HotKeysPublisher.TTL.toMillis());
    }

    @Test
    void podsThatPublishedNothingAnswerEmptyListsThatSaySo() {
        pod("pod-quiet");

        JsonNode fleet = api.get("/v1/hot-keys").json();

        assertThat(fleet.get("pods_registered").asInt()).isEqualTo(1);
        assertThat(fleet.get("pods_reported").asInt()).isZero();
        assertThat(fleet.get("store_calls").asLong()).isZero();
        assertThat(fleet.get("keys")).isEmpty();
        assertThat(fleet.get("slots")).isEmpty();
    }

    @Test
    void aRegionWithoutPodsAnswersEmpty() {
        JsonNode fleet = api.get("/v1/hot-keys").json();

        assertThat(fleet.get("pods_registered").asInt()).isZero();
        assertThat(fleet.get("pods_reported").asInt()).isZero();
        assertThat(fleet.get("keys")).isEmpty();
    }

    @Test
    void aDamagedReportCountsAsAPodThatDidNotReport() {
        Pod a = pod("pod-a");
        a.check(uniqueId("acct"), 2);
        a.publish();
        pod("pod-b");
        engineStore().connection().sync().set(RedisKeys.podHotKeys(REGION, "pod-b"), "not a report");

        JsonNode fleet = api.get("/v1/hot-keys").json();

        assertThat(fleet.get("pods_registered").asInt()).isEqualTo(2);
        assertThat(fleet.get("pods_reported").asInt()).isEqualTo(1);
        assertThat(fleet.get("keys")).hasSize(1);
    }

    @Test
    void refusesALimitOutsideOneToAHundred() {
        for (String bad : List.of("0", "101", "-1", "abc", "", "1.5", "99999999999")) {
            assertProblem(api.get("/v1/hot-keys?limit=" + bad), 400, "bad_request");
        }
        assertThat(api.get("/v1/hot-keys?limit=100").status).isEqualTo(200);
    }

    @Test
    void needsTheReadScope() {
        assertThat(new Api(port, TestTokens.token("bob", TestTokens.WATCH)).get("/v1/hot-keys").status).isEqualTo(403);
        assertThat(new Api(port, null).get("/v1/hot-keys").status).isEqualTo(401);
        assertThat(new Api(port, TestTokens.token("carol", TestTokens.READ)).get("/v1/hot-keys").status).isEqualTo(200);
    }

    @Test
    void noOtherSpellingOfThePathReadsWithoutTheReadScope() {
        Api watcher = new Api(port, TestTokens.token("bob", TestTokens.WATCH));
        Api anonymous = new Api(port, null);
        for (String path : List.of("/v1/hot-keys/", "/v1//hot-keys", "/V1/hot-keys", "/v1/HOT-KEYS", "/v1/hot-keys;x=1",
                "/v1;x=1/hot-keys", "/v1/hot%2Dkeys", "/%761/hot-keys", "/v1/%2e/hot-keys", "/v1/./hot-keys",
                "/v1/rules/../hot-keys", "/v1/hot-keys%00", "/v1/hot-keys%2F", "/v1/hot-keys.json")) {
            for (Api caller : List.of(watcher, anonymous)) {
                Api.Response answer = caller.get(path);
                assertThat(answer.status).as(path).isIn(400, 401, 403, 404);
                assertThat(answer.header("Content-Type")).as(path).hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
                assertThat(answer.json().path("code").asString()).as(path).isNotEmpty();
            }
        }
    }

    @Test
    void aHugeOrRepeatedLimitIsABadRequestNotAnError() {
        assertProblem(api.get("/v1/hot-keys?limit=" + "9".repeat(4_000)), 400, "bad_request");
        assertProblem(api.get("/v1/hot-keys?limit=1&limit=2"), 400, "bad_request");
        assertProblem(api.get("/v1/hot-keys?limit=%20"), 400, "bad_request");
        assertThat(api.get("/v1/hot-keys?limit=%2050%20").status).isEqualTo(200);
    }

    private Pod pod(String id) {
        Pod pod = new Pod(REGION, id, rule);
        opened.add(pod);
        return pod;
    }

    private RedisCounterStore engineStore() {
        RedisCounterStore store = RedisCounterStore.connect(RedisStoreSettings.of(RedisCluster.shared().seedUris())
                .withCommandTimeout(Duration.ofSeconds(2)));
        opened.add(store);
        return store;
    }
}
