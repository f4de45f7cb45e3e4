package dev.tollgate.rules;

import dev.tollgate.testsupport.postgres.Postgres;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code tollgate.watch.max-answer-size}: a delta past it is replaced by the region's snapshot; a snapshot
 * past it is not built, and answers 503 {@code answer_too_large} (the pod keeps its rules and asks again).
 * A store of its own, so that what other tests write cannot change the sizes.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "tollgate.watch.max-answer-size=8KB")
@Import(TestClockConfiguration.class)
class WatchAnswerCapIT {

    private static final String DATABASE = Postgres.shared().newDatabase("watch_cap");

    @LocalServerPort
    int port;

    @Autowired
    JdbcClient jdbc;

    Api api;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        ServiceTestBase.properties(registry, DATABASE);
    }

    @BeforeEach
    void client() {
        api = new Api(port, TestTokens.all("alice"));
    }

    @Test
    void aDeltaPastTheCapIsReplacedByTheSnapshotAndASnapshotPastItIsRefused() {
        String rule = ServiceTestBase.uniqueId("cap");
        api.put("/v1/rules/" + rule, ServiceTestBase.tokenBucket("public-api", 100, 200));
        long before = jdbc.sql("SELECT revision FROM store_revision").query(Long.class).single();
        // 300 rows that come and go: the delta since `before` lists each deletion (~14 KB), the snapshot has none
        jdbc.sql("INSERT INTO region_budgets (rule_id, limit_key, region, share)"
                + " SELECT ?, 'acct_' || i, 'us-east', 0.5 FROM generate_series(1, 300) AS i").param(rule).update();
        jdbc.sql("DELETE FROM region_budgets WHERE rule_id = ?").param(rule).update();

        Api.Response replaced = api.get("/v1/watch?since=" + before + "&region=us-east");
        assertThat(replaced.status).isEqualTo(200);
        JsonNode snapshot = replaced.json();
        assertThat(snapshot.get("kind").asString()).isEqualTo("snapshot");
        assertThat(snapshot.get("region_budgets")).isEmpty();
        assertThat(replaced.body.length()).isLessThan(8 * 1024);

        jdbc.sql("INSERT INTO region_budgets (rule_id, limit_key, region, share)"
                + " SELECT ?, 'acct_' || i, 'eu-west', 0.5 FROM generate_series(1, 300) AS i").param(rule).update();
        for (String path : new String[] {"/v1/watch?region=eu-west", "/v1/watch", "/v1/watch?since=" + before + "&region=eu-west"}) {
            Api.Response refused = api.get(path);
            assertThat(refused.status).as(path).isEqualTo(503);
            assertThat(refused.json().get("code").asString()).isEqualTo("answer_too_large");
            assertThat(refused.json().get("detail").asString()).contains("tollgate.watch.max-answer-size");
            assertThat(refused.header("Retry-After")).isPresent();
        }
        // another region's pods are not held back by it
        assertThat(api.get("/v1/watch?region=us-east").status).isEqualTo(200);
    }
}
