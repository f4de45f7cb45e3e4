package dev.tollgate.check.api;

import dev.tollgate.check.WebTestClients;
import dev.tollgate.testsupport.metrics.SeriesCatalog;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.context.annotation.Import;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

import java.io.IOException;
import java.net.ServerSocket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.containsString;

/**
 * A pod whose Redis Cluster cannot be reached still starts and serves (requirement #4): API rules
 * answer from fallback buckets, the login rule answers 503 store_unavailable, and no credential is
 * ever part of an answer. It is alive but not ready until its store grace is over (30 s by default).
 * Health details are read as an authorized operator would see them ({@code show-details=always} here;
 * the shipped configuration shows them only to authorized callers).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@AutoConfigureWebTestClient
@Import(WebTestClients.AutoConfigured.class)
class StoreDownIT {

    @DynamicPropertySource
    static void unreachableRedis(DynamicPropertyRegistry registry) throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        int port = closedPort;
        registry.add("spring.data.redis.cluster.nodes", () -> "127.0.0.1:" + port);
        registry.add("spring.data.redis.password", () -> "top-secret-pw");
        registry.add("tollgate.rules.file", () -> "src/test/resources/rules-test.yml");
        registry.add("management.endpoint.health.show-details", () -> "always");
    }

    @Autowired
    WebTestClient http;

    @Test
    void failOpenRulesAreAllowedFromFallback() {
        check("{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"growth-global\",\"key\":\"acct_1\"}]}")
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.verdict").isEqualTo("allow")
                .jsonPath("$.entries[0].fallback").isEqualTo("fail_open");
    }

    @Test
    void exportsTheFailModeSeriesTheAlertsName() {
        check("{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"growth-global\",\"key\":\"acct_2\"}]}").expectStatus().isOk();
        check("{\"domain\":\"auth\",\"entries\":[{\"rule\":\"login-ip\",\"key\":\"203.0.113.10\"}]}").expectStatus().isEqualTo(503);
        String scrape = http.get().uri("/actuator/prometheus").exchange().expectStatus().isOk()
                .expectBody(String.class).returnResult().getResponseBody();

        assertThat(SeriesCatalog.missingFrom(scrape, "check-service/store-down")).isEmpty();
    }

    @Test
    void failClosedRulesAnswer503StoreUnavailable() {
        check("{\"domain\":\"auth\",\"entries\":[{\"rule\":\"login-ip\",\"key\":\"203.0.113.9\"}]}")
                .expectStatus().isEqualTo(503)
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
                .expectBody(String.class)
                .value(containsString("\"code\":\"store_unavailable\""))
                .value(containsString("\"rules\":[\"login-ip\"]"))
                .value(not(containsString("top-secret-pw")));
    }

    @Test
    void healthSaysTheStoreIsNotConnectedAndWhyWithoutACredential() {
        http.get().uri("/actuator/health/liveness").exchange().expectStatus().isOk();
        http.get().uri("/actuator/health/readiness").exchange()
                .expectStatus().isEqualTo(503)
                .expectBody()
                .jsonPath("$.status").isEqualTo("OUT_OF_SERVICE")
                .jsonPath("$.components.enforcing.details.waitingFor[0]").value(containsString("the counter store"));
        http.get().uri("/actuator/health").exchange()
                .expectBody()
                .jsonPath("$.components.counterStore.status").isEqualTo("UP")
                .jsonPath("$.components.counterStore.details.connected").isEqualTo(false)
                .jsonPath("$.components.counterStore.details.mode").value(containsString("fallback"))
                .jsonPath("$.components.counterStore.details.lastError").isNotEmpty()
                .consumeWith(body -> org.assertj.core.api.Assertions.assertThat(new String(body.getResponseBodyContent()))
                        .doesNotContain("top-secret-pw"));
    }

    private WebTestClient.ResponseSpec check(String body) {
        return http.post().uri("/v1/ratelimit:check").contentType(MediaType.APPLICATION_JSON).bodyValue(body).exchange();
    }
}
