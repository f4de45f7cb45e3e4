package dev.tollgate.rules;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Health on the API port (actuator sharing it, as in development): the status for anyone, the components for a reader. */
class HealthDetailsIT extends ServiceTestBase {

    @Test
    void showsAnAnonymousCallerTheStatusOnly() {
        Api.Response health = api.as(null).get("/actuator/health");

        assertThat(health.status).isEqualTo(200);
        assertThat(health.body).contains("\"status\":\"UP\"").doesNotContain("components", "redis", "db");
    }

    @Test
    void showsAReaderTheComponents() {
        Api.Response health = api.as(TestTokens.token("alice", "ratelimit:read")).get("/actuator/health");

        assertThat(health.status).isEqualTo(200);
        assertThat(health.body).contains("\"components\"", "\"db\"");
    }
}
