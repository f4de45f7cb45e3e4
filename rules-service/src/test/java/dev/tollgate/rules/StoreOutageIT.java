package dev.tollgate.rules;

import dev.tollgate.testsupport.postgres.Postgres;
import dev.tollgate.testsupport.redis.RedisCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.net.http.HttpResponse;
import java.time.Duration;

import static dev.tollgate.rules.RuleApiIT.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * PostgreSQL going away: on a private server this test stops and starts. Writes answer 503 and leave
 * nothing behind, even when the connection dies between a rule's row and its history row; the service
 * recovers on its own when the server is back.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
class StoreOutageIT {

    private static final Postgres POSTGRES = Postgres.startPrivate();

    @LocalServerPort
    int port;

    @Autowired
    JdbcClient jdbc;

    Api api;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", POSTGRES::jdbcUrl);
        registry.add("spring.datasource.username", POSTGRES::username);
        registry.add("spring.datasource.password", POSTGRES::password);
        registry.add("spring.datasource.hikari.connection-timeout", () -> "1000");
        TestTokens.trustThroughKeyFile(registry);
        registry.add("tollgate.watch.timeout", () -> "1500ms");
        registry.add("tollgate.watch.poll", () -> "50ms");
        // a port nobody listens on: the usage endpoint answers 503, everything else serves
        registry.add("spring.data.redis.cluster.nodes", () -> "127.0.0.1:" + RedisCluster.reservePorts(1).get(0));
        registry.add("tollgate.console.token-sign-in", () -> "true");
    }

    @AfterAll
    static void stopPostgres() {
        POSTGRES.close();
    }

    @BeforeEach
    void client() {
        api = new Api(port, TestTokens.all("alice"));
    }

    @Test
    void answers503WhilePostgresIsDownLeavesNothingAndRecoversByItself() {
        String kept = ServiceTestBase.uniqueId("kept");
        assertThat(api.put("/v1/rules/" + kept, ServiceTestBase.tokenBucket("public-api", 100, 200)).status).isEqualTo(201);
        long revision = api.get("/v1/watch").json().get("revision").asLong();
        String lost = ServiceTestBase.uniqueId("lost");

        POSTGRES.stop();
        try {
            long started = System.nanoTime();
            Api.Response create = api.put("/v1/rules/" + lost, ServiceTestBase.tokenBucket("public-api", 100, 200));
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
            assertProblem(create, 503, "store_unavailable");
            assertThat(create.json().get("store").asString()).isEqualTo("rules");
            assertThat(create.header("Retry-After")).isPresent();
            assertProblem(api.request("PUT", "/v1/rules/" + kept).ifMatch(1)
                    .body(ServiceTestBase.tokenBucket("public-api", 1, 200)).send(), 503, "store_unavailable");
            assertProblem(api.post("/v1/overrides", ValidationIT.override("acct_1", kept, 5, 5, null)), 503, "store_unavailable");
            assertProblem(api.get("/v1/rules/" + kept), 503, "store_unavailable");
            assertProblem(api.get("/v1/watch?since=" + revision), 503, "store_unavailable");
            assertThat(api.as(null).get("/actuator/health/liveness").status).isEqualTo(200);
        } finally {
            POSTGRES.start();
        }

        Api.Response created = retryUntilNot503(() -> api.put("/v1/rules/" + lost, ServiceTestBase.tokenBucket("public-api", 100, 200)));
        assertThat(created.status).isEqualTo(201);
        assertThat(api.get("/v1/rules/" + kept).json().get("rate_per_s").asInt()).as("the replace during the outage left nothing").isEqualTo(100);
        assertThat(api.get("/v1/rules/" + kept + "/versions").json()).hasSize(1);
        assertThat(api.get("/v1/rules/" + lost + "/versions").json()).hasSize(1);
        assertThat(api.get("/v1/watch?since=" + revision).status).isEqualTo(200);
    }

    @Test
    void aConnectionLostBetweenTheRuleAndItsHistoryRowLeavesNeither() {
        // a test-only trigger: the session kills itself after the rule row is written, before its history row is
        jdbc.sql("""
                CREATE OR REPLACE FUNCTION test_lose_connection() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    PERFORM pg_terminate_backend(pg_backend_pid());
                    PERFORM pg_sleep(5);
                    RETURN NEW;
                END $$""").update();
        jdbc.sql("CREATE OR REPLACE TRIGGER test_lose_connection BEFORE INSERT ON rule_history FOR EACH ROW"
                + " WHEN (NEW.rule_id LIKE 'doomed-%') EXECUTE FUNCTION test_lose_connection()").update();
        long revision = jdbc.sql("SELECT revision FROM store_revision").query(Long.class).single();
        String doomed = ServiceTestBase.uniqueId("doomed");
        try {
            Api.Response refused = api.put("/v1/rules/" + doomed, ServiceTestBase.tokenBucket("public-api", 100, 200));

            assertProblem(refused, 503, "store_unavailable");
            assertThat(jdbc.sql("SELECT count(*) FROM rules WHERE rule_id = ?").param(doomed).query(Long.class).single()).isZero();
            assertThat(jdbc.sql("SELECT count(*) FROM rule_history WHERE rule_id = ?").param(doomed).query(Long.class).single()).isZero();
            assertThat(jdbc.sql("SELECT revision FROM store_revision").query(Long.class).single()).isEqualTo(revision);
            assertThat(api.put("/v1/rules/" + ServiceTestBase.uniqueId("fine"), ServiceTestBase.tokenBucket("public-api", 1, 1)).status)
                    .as("the pool replaced the dead connection").isEqualTo(201);
        } finally {
            jdbc.sql("DROP TRIGGER test_lose_connection ON rule_history").update();
        }
    }

    @Test
    void aSimulationAnswers503WhileTheCounterStoreIsDownAndABadSpanStill400() {
        String rule = ServiceTestBase.uniqueId("simulated");
        assertThat(api.put("/v1/rules/" + rule, ServiceTestBase.tokenBucket("public-api", 100, 200)).status).isEqualTo(201);
        String proposal = ServiceTestBase.tokenBucket("public-api", 5, 10);

        long started = System.nanoTime();
        Api.Response down = api.post("/v1/rules/" + rule + ":simulate?span=1m", proposal);

        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
        assertProblem(down, 503, "store_unavailable");
        assertThat(down.json().get("store").asString()).isEqualTo("counters");
        assertProblem(api.post("/v1/rules/" + rule + ":simulate?span=2h", proposal), 400, "bad_request");
    }

    @Test
    void hotKeysAnswer503WhileTheCounterStoreIsDownAndBadLimitsStill400() {
        long started = System.nanoTime();
        Api.Response down = api.get("/v1/hot-keys");

        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
        assertProblem(down, 503, "store_unavailable");
        assertThat(down.json().get("store").asString()).isEqualTo("counters");
        // the parameter is checked before the store is asked
        assertProblem(api.get("/v1/hot-keys?limit=0"), 400, "bad_request");
    }

    @Test
    void aCanarysRatesAnswer503WhileTheCounterStoreIsDownAndTheCanaryItselfServes() {
        String id = ServiceTestBase.uniqueId("canaried");
        assertThat(retryUntilNot503(() -> api.put("/v1/rules/" + id, ServiceTestBase.tokenBucket("public-api", 100, 200))).status).isEqualTo(201);
        Api.Response canary = api.request("PUT", "/v1/rules/" + id + "?rollout=canary").ifMatch(1)
                .body(ServiceTestBase.tokenBucket("public-api", 300, 600)).send();
        assertThat(canary.status).as(canary.body).isEqualTo(201);

        Api.Response rates = api.get("/v1/rules/" + id + "/canary/rates");

        assertProblem(rates, 503, "store_unavailable");
        assertThat(rates.json().get("store").asString()).isEqualTo("counters");
        assertThat(api.get("/v1/rules/" + id + "/canary").status).as("PostgreSQL's part").isEqualTo(200);
    }

    @Test
    void theConsolesWhatIfPanelsSayTheSimulationCannotRunOnTheRulesPage() throws Exception {
        String id = ServiceTestBase.uniqueId("what-if-down");
        assertThat(retryUntilNot503(() -> api.put("/v1/rules/" + id, Api.json("{'domain':'public-api','match':{'plan':'growth'},"
                + "'algorithm':'token_bucket','rate_per_s':100,'burst':200,'mode':'shadow'}"))).status).isEqualTo(201);
        ConsoleHttp reader = ConsoleHttp.signIn(port, "rita", TestTokens.READ);
        String page = reader.get("/console/rules/" + id).body();

        for (String panel : new String[] {"/what-if", "/what-if-enforced"}) {
            HttpResponse<String> down = reader.post(page, "/console/rules/" + id + panel,
                    "version=1&ratePerS=5&periodS=1&burst=10&maxCost=1&failMode=open&span=15m");

            assertThat(down.statusCode()).isEqualTo(503);
            assertThat(down.body()).as("the rule's page, saying why").contains("<h1>Rule <code>" + id + "</code>")
                    .contains("id=\"what-if-unavailable\"").contains("The simulation cannot run right now")
                    .contains("counter store (Redis) cannot be read").contains("id=\"what-if-form\"")
                    .doesNotContain("id=\"what-if-headline\"");
        }
    }

    private static Api.Response retryUntilNot503(java.util.function.Supplier<Api.Response> call) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        Api.Response response = call.get();
        while (response.status == 503 && System.nanoTime() < deadline) {
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            response = call.get();
        }
        return response;
    }
}
