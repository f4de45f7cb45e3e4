package dev.tollgate.rules;

import dev.tollgate.testsupport.postgres.Postgres;
import dev.tollgate.testsupport.redis.RedisCluster;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static dev.tollgate.rules.RuleApiIT.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dev profile: a static token from configuration, no JWT set-up at all. As the dev stack runs it: its
 * own short token, which the service accepts because it listens on loopback only.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"tollgate.security.dev-token=" + DevProfileIT.TOKEN, "server.address=127.0.0.1"})
@ActiveProfiles("dev")
class DevProfileIT {

    static final String TOKEN = "dev-token";

    private static final String DATABASE = Postgres.shared().newDatabase("rules_dev");

    @LocalServerPort
    int port;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", () -> DATABASE);
        registry.add("spring.datasource.username", () -> Postgres.shared().username());
        registry.add("spring.datasource.password", () -> Postgres.shared().password());
        // a port nobody listens on: the usage endpoint answers 503, everything else serves
        registry.add("spring.data.redis.cluster.nodes", () -> "127.0.0.1:" + RedisCluster.reservePorts(1).get(0));
    }

    @Test
    void theStaticTokenHasEveryScopeAndIsRecordedAsDev() {
        Api dev = new Api(port, TOKEN);

        Api.Response created = dev.put("/v1/rules/dev-rule", ServiceTestBase.tokenBucket("public-api", 10, 10));

        assertThat(created.status).isEqualTo(201);
        assertThat(dev.get("/v1/watch").status).isEqualTo(200);
        assertThat(dev.get("/v1/rules/dev-rule/versions").json().get(0).get("changed_by").asString()).isEqualTo("dev");
    }

    @Test
    void usageAnswers503WhenNoCounterStoreIsConfigured() {
        Api.Response usage = new Api(port, TOKEN).get("/v1/keys/acct_1/usage");

        assertProblem(usage, 503, "store_unavailable");
        assertThat(usage.json().get("store").asString()).isEqualTo("counters");
    }

    @Test
    void anyOtherTokenIs401() {
        assertProblem(new Api(port, "dev-tokeN").get("/v1/rules"), 401, "unauthorized");
        assertProblem(new Api(port, TestTokens.all("alice")).get("/v1/rules"), 401, "unauthorized");
        assertProblem(new Api(port, null).get("/v1/rules"), 401, "unauthorized");
    }
}
