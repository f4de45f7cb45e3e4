package dev.tollgate.check.api;

import dev.tollgate.check.CheckServiceApplication;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.store.LuaScript;
import dev.tollgate.store.RedisCounterStore;
import dev.tollgate.store.RedisStoreSettings;
import dev.tollgate.store.script.ScriptCall;
import dev.tollgate.store.script.Spend;
import dev.tollgate.store.script.SpendCall;
import dev.tollgate.testsupport.redis.Node;
import dev.tollgate.testsupport.redis.RedisCluster;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a reader's token opens, on a pod and a Redis Cluster of its own: {@code GET /v1/hot-keys} names the key that
 * takes the pod's store calls, and {@code POST /v1/ratelimit:explain} it names the stage and the reason of a
 * deny from the deny cache, from the store (a key another pod spent) and from a fail-closed rule whose shard is
 * frozen (SIGSTOP); the counters it looks at are the same before and after, read raw from the store; and only a
 * reader's token opens it, a gateway's never, however the path is spelled.
 */
class ReaderViewsIT {

    private static final String SERVICE_TOKEN = "gateway-token-7f3a9c1e5b2d4f60";
    private static final String READER_TOKEN = "reader-token-0a1b2c3d4e5f6a7b";
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** labels-route as rules-test.yml has it: 1 a second, burst 2. */
    private static final Rule LABELS = Rule.tokenBucket("labels-route", "public-api", 1, 2).withMatch(new Match("growth", "/v1/labels"));

    private static RedisCluster cluster;
    private static ConfigurableApplicationContext pod;
    private static String base;
    private static RedisClusterClient raw;
    private static StatefulRedisClusterConnection<String, String> connection;

    @BeforeAll
    static void start() {
        cluster = RedisCluster.builder().start();
        pod = new SpringApplicationBuilder(CheckServiceApplication.class)
                .web(WebApplicationType.REACTIVE)
                .logStartupInfo(false)
                .run("--server.port=0", "--tollgate.grpc.enabled=false",
                        "--spring.data.redis.cluster.nodes=" + cluster.clusterNodes(),
                        "--tollgate.redis.command-timeout=2s",
                        "--tollgate.rules.file=src/test/resources/rules-test.yml", "--tollgate.rules.service-url=",
                        "--tollgate.pods.id=reader-views-it", "--tollgate.region.name=reader-views-it",
                        "--management.metrics.use-global-registry=false",
                        "--tollgate.access.tokens=" + SERVICE_TOKEN, "--tollgate.access.reader-tokens=" + READER_TOKEN);
        base = "http://127.0.0.1:" + pod.getEnvironment().getProperty("local.server.port");
        raw = RedisClusterClient.create(cluster.seedUris().stream().map(RedisURI::create).toList());
        connection = raw.connect();
    }

    @AfterAll
    static void stop() {
        if (connection != null) {
            connection.close();
            raw.shutdown();
        }
        if (pod != null) {
            pod.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void onlyAReadersTokenOpensItHoweverThePathIsSpelled() throws Exception {
        String body = labels("acct_" + UUID.randomUUID());

        assertThat(post("/v1/ratelimit:explain", null, body).statusCode()).isEqualTo(401);
        assertThat(post("/v1/ratelimit:explain", "Bearer not-a-token-of-anyone-here", body).statusCode()).isEqualTo(401);
        HttpResponse<String> gateway = post("/v1/ratelimit:explain", "Bearer " + SERVICE_TOKEN, body);
        assertThat(gateway.statusCode()).as("a gateway's token is not a reader's").isEqualTo(401);
        assertThat(JSON.readTree(gateway.body()).get("code").asString()).isEqualTo("unauthorized");
        for (String spelling : List.of("/v1;x/ratelimit:explain", "/%761/ratelimit:explain", "/v1/ratelimit%3Aexplain")) {
            assertThat(post(spelling, "Bearer " + SERVICE_TOKEN, body).statusCode()).as(spelling).isIn(401, 404);
        }
        assertThat(post("/v1/ratelimit:explain", "Bearer " + READER_TOKEN, body).statusCode()).isEqualTo(200);
        assertThat(post("/%761/ratelimit:explain", "Bearer " + READER_TOKEN, body).statusCode())
                .as("the router reads it as explain, and so does the filter").isEqualTo(200);
        assertThat(post("/v1/ratelimit:check", "Bearer " + READER_TOKEN, body).statusCode())
                .as("a reader's token spends nothing: the check refuses it").isEqualTo(401);
    }

    @Test
    void badInputIsTheChecksProblemNeverA500() throws Exception {
        HttpResponse<String> invalid = explain("{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"labels-route\",\"key\":\"k\",\"cost\":-1}]}");
        HttpResponse<String> unreadable = explain("{\"domain\":");

        assertThat(invalid.statusCode()).isEqualTo(422);
        assertThat(JSON.readTree(invalid.body()).get("code").asString()).isEqualTo("invalid_request");
        assertThat(unreadable.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(unreadable.body()).get("code").asString()).isEqualTo("bad_request");
    }

    @Test
    void aKeyAnotherPodSpentIsDeniedByTheStoreAndTheLookChangesNoCounter() throws Exception {
        String account = "acct_" + UUID.randomUUID();
        String redisKey = "rl:{" + account + "}:labels-route";
        // the default 5 ms command timeout also bounds its first slot-map read, which a busy CI machine can miss: the
        // store then starts unconnected and retries, and the spends below failed "not connected"
        try (RedisCounterStore otherPod = RedisCounterStore.connect(RedisStoreSettings.of(cluster.seedUris()).withCommandTimeout(Duration.ofSeconds(2)))) {
            ScriptCall spend = SpendCall.of(account, List.of(new Spend(LABELS, 1.0, 1)), 1, 1, 0);
            for (int i = 0; i < 2; i++) {
                otherPod.run(LuaScript.SPEND, spend.keys(), spend.args()).join();
            }
        }
        RedisAdvancedClusterCommands<String, String> redis = connection.sync();
        Map<String, String> before = redis.hgetall(redisKey);
        long ttlBefore = redis.pttl(redisKey);

        JsonNode explained = JSON.readTree(explain(labels(account)).body());

        assertThat(explained.get("allowed").asBoolean()).isFalse();
        assertThat(explained.get("pod").asString()).as("the pod that answered, whose deny cache and leases these are")
                .isEqualTo("reader-views-it");
        JsonNode entry = explained.get("entries").get(0);
        assertThat(entry.get("stage").asString()).isEqualTo("store");
        assertThat(entry.get("allowed").asBoolean()).isFalse();
        assertThat(entry.get("why").asString()).contains("holds 0 of 2", "short of a request of cost 1");
        assertThat(entry.get("limit_key").asString()).isEqualTo(redisKey);
        assertThat(entry.get("level").get("remaining").asLong()).isZero();
        assertThat(entry.get("level").get("stored").asBoolean()).isTrue();
        assertThat(entry.has("version")).as("a file's rules are version 0; the service's count from 1").isTrue();
        assertThat(entry.get("rule_in_force").get("burst").asInt()).isEqualTo(2);
        assertThat(redis.hgetall(redisKey)).as("no refill written, no queue slot taken").isEqualTo(before);
        assertThat(redis.pttl(redisKey)).as("no expiry moved on").isLessThanOrEqualTo(ttlBefore);
    }

    @Test
    void aDenyThePodRemembersIsExplainedAsItsDenyCache() throws Exception {
        String account = "acct_" + UUID.randomUUID();
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> checked = post("/v1/ratelimit:check", "Bearer " + SERVICE_TOKEN, labels(account));
            assertThat(checked.statusCode()).isEqualTo(200);
        }

        JsonNode entry = JSON.readTree(explain(labels(account)).body()).get("entries").get(0);

        assertThat(entry.get("stage").asString()).isEqualTo("deny_cache");
        assertThat(entry.get("allowed").asBoolean()).isFalse();
        assertThat(entry.get("why").asString()).contains("remembers the store's deny", "retry in");
    }

    @Test
    void aFailClosedRuleWhoseShardIsFrozenIsExplainedAsItsFailModeAndTheLogIsUntouched() throws Exception {
        String ip = "198.51.100." + (1 + (int) (Math.random() * 250));
        String logKey = "rl:{" + ip + "}:login-ip:log";
        String login = "{\"domain\":\"auth\",\"entries\":[{\"rule\":\"login-ip\",\"key\":\"" + ip + "\",\"cost\":1}]}";
        assertThat(post("/v1/ratelimit:check", "Bearer " + SERVICE_TOKEN, login).statusCode()).isEqualTo(200);
        RedisAdvancedClusterCommands<String, String> redis = connection.sync();
        List<String> logged = redis.zrange(logKey, 0, -1);
        long ttlBefore = redis.pttl(logKey);

        JsonNode healthy = JSON.readTree(explain(login).body()).get("entries").get(0);
        assertThat(healthy.get("stage").asString()).isEqualTo("store");
        assertThat(healthy.get("level").get("remaining").asLong()).isEqualTo(4);
        assertThat(redis.zrange(logKey, 0, -1)).isEqualTo(logged);
        assertThat(redis.pttl(logKey)).isLessThanOrEqualTo(ttlBefore);

        Node shard = cluster.primaryForKey(logKey);
        shard.freeze();
        try {
            long started = System.nanoTime();
            HttpResponse<String> frozen = explain(login);
            Duration took = Duration.ofNanos(System.nanoTime() - started);

            assertThat(frozen.statusCode()).isEqualTo(200);
            JsonNode entry = JSON.readTree(frozen.body()).get("entries").get(0);
            assertThat(entry.get("stage").asString()).isEqualTo("fail_mode");
            assertThat(entry.get("allowed").asBoolean()).isFalse();
            assertThat(entry.get("why").asString()).contains("did not answer a look", "rule login-ip fails closed");
            assertThat(entry.has("level")).isFalse();
            assertThat(took).as("a look waits a second for the store, not the client's patience").isLessThan(Duration.ofSeconds(3));
        } finally {
            shard.unfreeze();
        }
    }

    @Test
    void theKeyThatTakesThePodsStoreCallsIsFirstAmongTheHotKeys() throws Exception {
        String hot = "acct_hot_" + UUID.randomUUID();
        for (int i = 0; i < 120; i++) {
            post("/v1/ratelimit:check", "Bearer " + SERVICE_TOKEN, free(hot));
        }
        for (int i = 0; i < 10; i++) {
            post("/v1/ratelimit:check", "Bearer " + SERVICE_TOKEN, free("acct_cold_" + UUID.randomUUID()));
        }

        HttpResponse<String> answer = get("/v1/hot-keys", "Bearer " + READER_TOKEN);

        assertThat(answer.statusCode()).isEqualTo(200);
        JsonNode top = JSON.readTree(answer.body());
        assertThat(top.get("keys").get(0).get("key").asString()).isEqualTo(hot);
        assertThat(top.get("keys").get(0).get("store_calls").asLong()).as("leases and the deny cache spare most, not all").isGreaterThan(1);
        assertThat(top.get("slots").valueStream().map(slot -> slot.get("slot").asInt()))
                .contains(top.get("keys").get(0).get("slot").asInt());
        assertThat(get("/v1/hot-keys", "Bearer " + SERVICE_TOKEN).statusCode()).as("a key is user data: no gateway reads them").isEqualTo(401);
        assertThat(get("/v1;x/hot-keys", "Bearer " + SERVICE_TOKEN).statusCode()).isIn(401, 404);
        assertThat(get("/v1/hot-keys", null).statusCode()).isEqualTo(401);
        String scrape = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/actuator/prometheus")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        assertThat(scrape).contains("tollgate_store_hot_key_share ", "tollgate_store_hot_slot_share ")
                .as("the series name no key").doesNotContain(hot);
    }

    private static String free(String account) {
        return "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"free-global\",\"key\":\"" + account + "\",\"cost\":1}]}";
    }

    private static HttpResponse<String> get(String path, String authorization) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(10)).GET();
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String labels(String account) {
        return "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"labels-route\",\"key\":\"" + account + "\",\"cost\":1}]}";
    }

    private static HttpResponse<String> explain(String body) throws Exception {
        return post("/v1/ratelimit:explain", "Bearer " + READER_TOKEN, body);
    }

    private static HttpResponse<String> post(String path, String authorization, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
