package dev.tollgate.rules;

import dev.tollgate.testsupport.postgres.Postgres;
import dev.tollgate.testsupport.redis.RedisCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.util.UUID;

/**
 * The one application context most integration tests share: a fresh database on the shared PostgreSQL
 * (migrated by the service's own Flyway), the shared Redis Cluster for usage reads, JWTs trusted as the
 * Helm chart configures it (issuer and audience, keys discovered from a loopback identity provider), and
 * short watch timings. Tests use rule ids of their own ({@link #uniqueId}) so that they
 * never depend on each other's rows.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import(TestClockConfiguration.class)
abstract class ServiceTestBase {

    private static final String DATABASE = Postgres.shared().newDatabase("rules_service");

    @LocalServerPort
    int port;

    @Autowired
    MutableClock clock;

    @Autowired
    JdbcClient jdbc;

    /** A client with every scope, as subject {@code alice}. */
    Api api;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        properties(registry, DATABASE);
    }

    /** This context's settings on {@code database}: for a test that needs a store of its own. */
    static void properties(DynamicPropertyRegistry registry, String database) {
        Postgres postgres = Postgres.shared();
        registry.add("spring.datasource.url", () -> database);
        registry.add("spring.datasource.username", postgres::username);
        registry.add("spring.datasource.password", postgres::password);
        TestTokens.trustThroughIssuer(registry);
        registry.add("tollgate.watch.timeout", () -> "1500ms");
        registry.add("tollgate.watch.poll", () -> "50ms");
        registry.add("tollgate.usage.region", () -> "us-east");
        registry.add("spring.data.redis.cluster.nodes", () -> RedisCluster.shared().clusterNodes());
        registry.add("spring.data.redis.timeout", () -> "1s");
    }

    @BeforeEach
    void client() {
        api = new Api(port, TestTokens.all("alice"));
    }

    @AfterEach
    void resetClock() {
        clock.reset();
    }

    static String uniqueId(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** A valid token-bucket rule for plan growth, as the PUT body. */
    static String tokenBucket(String domain, int rate, int burst) {
        return Api.json("{'domain':'" + domain + "','match':{'plan':'growth'},'algorithm':'token_bucket',"
                + "'rate_per_s':" + rate + ",'burst':" + burst + "}");
    }

    long storeRevision() {
        return jdbc.sql("SELECT revision FROM store_revision").query(Long.class).single();
    }
}
