package dev.tollgate.rules;

import dev.tollgate.testsupport.metrics.SeriesCatalog;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.TestPropertySource;

import static dev.tollgate.rules.RuleApiIT.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Actuator on its own port, as the chart runs it (management.server.port): Prometheus scrapes it and the
 * kubelet probes it without a token, while the API port still asks for one and the management port
 * serves nothing of the API.
 */
@TestPropertySource(properties = "management.server.port=0")
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
class ManagementPortIT extends ServiceTestBase {

    @LocalManagementPort
    int managementPort;

    @Test
    void servesPrometheusWithoutATokenOnTheManagementPort() {
        Api.Response scrape = new Api(managementPort, null).get("/actuator/prometheus");

        assertThat(managementPort).isNotEqualTo(port);
        assertThat(scrape.status).isEqualTo(200);
        assertThat(scrape.body).contains("application=\"rules-service\"").contains("region=\"us-east\"");
    }

    @Test
    void exportsEverySeriesTheDashboardAndAlertsNameForRulesService() {
        api.put("/v1/rules/" + uniqueId("scrape"), tokenBucket("public-api", 10, 20));

        Api.Response scrape = new Api(managementPort, null).get("/actuator/prometheus");

        assertThat(SeriesCatalog.missingFrom(scrape.body, "rules-service")).isEmpty();
    }

    @Test
    void probesWithoutATokenButShowsNoDetailsThere() {
        Api.Response health = new Api(managementPort, null).get("/actuator/health");

        assertThat(health.status).isEqualTo(200);
        assertThat(health.body).contains("\"status\":\"UP\"").doesNotContain("components", "jdbc:", "redis://");
        assertThat(new Api(managementPort, null).get("/actuator/health/readiness").status).isEqualTo(200);
    }

    @Test
    void keepsTheApiPortBehindTokensAndTheApiOffTheManagementPort() {
        assertProblem(api.as(null).get("/actuator/prometheus"), 401, "unauthorized");
        assertProblem(api.as(null).get("/v1/rules"), 401, "unauthorized");
        assertThat(new Api(managementPort, null).get("/v1/rules").status).isEqualTo(404);
        assertThat(new Api(managementPort, TestTokens.all("alice")).get("/v1/rules").status).isEqualTo(404);
    }
}
