package dev.tollgate.check.api;

import dev.tollgate.check.SharedClusterPod;
import dev.tollgate.check.WebTestClients;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.context.annotation.Import;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

import java.util.UUID;
import java.util.stream.Stream;

/**
 * A check that says what the request is (plan, route, identities) instead of naming rules: the pod finds the rules
 * of rules-test.yml that apply and spends them exactly as the named check would, on a real Redis Cluster.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@AutoConfigureWebTestClient
@Import(WebTestClients.AutoConfigured.class)
class CheckByAttributesIT {

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        SharedClusterPod.register(registry, "src/test/resources/rules-test.yml");
    }

    @Autowired
    WebTestClient http;

    private WebTestClient.ResponseSpec check(String body) {
        return http.post().uri("/v1/ratelimit:check").contentType(MediaType.APPLICATION_JSON).bodyValue(body).exchange();
    }

    private static String growthOnLabels(String key, String route) {
        return """
                {"domain":"public-api","attributes":{"plan":"growth","route":"%s","api_key":"%s","ip":"203.0.113.9"},"cost":1}
                """.formatted(route, key);
    }

    @Test
    void theRulesFoundAreSpentAsTheNamedCheckSpendsThem() {
        String key = "acct_" + UUID.randomUUID();
        check(growthOnLabels(key, "/v1/labels")).expectStatus().isOk().expectBody()
                .jsonPath("$.verdict").isEqualTo("allow")
                .jsonPath("$.entries.length()").isEqualTo(2)
                .jsonPath("$.entries[0].rule").isEqualTo("growth-global")
                .jsonPath("$.entries[0].remaining").isEqualTo(199)
                .jsonPath("$.entries[1].rule").isEqualTo("labels-route")
                .jsonPath("$.entries[1].remaining").isEqualTo(1);
        // the same buckets: the named check sees what the check by attributes spent
        check("""
                {"domain":"public-api","entries":[{"rule":"growth-global","key":"%s"},{"rule":"labels-route","key":"%s"}]}
                """.formatted(key, key)).expectStatus().isOk().expectBody()
                .jsonPath("$.entries[1].remaining").isEqualTo(0);
        // all or nothing: the route's bucket is empty, so the whole check is denied
        check(growthOnLabels(key, "/v1/labels")).expectStatus().isOk().expectBody()
                .jsonPath("$.verdict").isEqualTo("deny")
                .jsonPath("$.entries[1].rule").isEqualTo("labels-route");
    }

    @Test
    void anotherRouteSpendsOnlyTheAccountWideRulesAndAnotherPlanItsOwn() {
        String key = "acct_" + UUID.randomUUID();
        check(growthOnLabels(key, "/v1/other")).expectStatus().isOk().expectBody()
                .jsonPath("$.entries.length()").isEqualTo(1)
                .jsonPath("$.entries[0].rule").isEqualTo("growth-global");
        check("""
                {"domain":"public-api","attributes":{"plan":"free","route":"/v1/labels","api_key":"%s"}}
                """.formatted(key)).expectStatus().isOk().expectBody()
                .jsonPath("$.entries[0].rule").isEqualTo("free-daily")
                .jsonPath("$.entries[1].rule").isEqualTo("free-global");
    }

    /** A spelling the backend serves as /v1/labels spends the route's rule too. */
    @ParameterizedTest
    @ValueSource(strings = {"/v1/labels/", "/v1//labels", "/v1/./labels", "/v1/x/../labels", "/v1/%6Cabels", "/v1/labels?page=2"})
    void anOddSpellingOfTheRouteFindsItsRule(String spelling) {
        check(growthOnLabels("acct_" + UUID.randomUUID(), spelling)).expectStatus().isOk().expectBody()
                .jsonPath("$.entries[1].rule").isEqualTo("labels-route");
    }

    /** Cost 0 looks: is there room for one more request? Nothing is spent, whether it is asked by name or by attributes. */
    @Test
    void aCostOfZeroLooksWithoutSpending() {
        String ip = "192.0.2.1-" + UUID.randomUUID();
        String look = "{\"domain\":\"auth\",\"attributes\":{\"route\":\"/login\",\"ip\":\"%s\"},\"cost\":0}".formatted(ip);
        for (int i = 0; i < 3; i++) {
            check(look).expectStatus().isOk().expectBody().jsonPath("$.verdict").isEqualTo("allow").jsonPath("$.entries[0].remaining").isEqualTo(5);
        }
        for (int i = 0; i < 5; i++) {
            check("{\"domain\":\"auth\",\"entries\":[{\"rule\":\"login-ip\",\"key\":\"%s\"}]}".formatted(ip)).expectStatus().isOk();
        }
        check(look).expectStatus().isOk().expectBody().jsonPath("$.verdict").isEqualTo("deny");
        check("{\"domain\":\"auth\",\"entries\":[{\"rule\":\"login-ip\",\"key\":\"%s\",\"cost\":0}]}".formatted(ip))
                .expectStatus().isOk().expectBody().jsonPath("$.verdict").isEqualTo("deny").jsonPath("$.entries[0].retry_ms").isNumber();
    }

    @Test
    void noRuleFoundIsAnAllowWithNoEntries() {
        check("""
                {"domain":"public-api","attributes":{"plan":"enterprise","route":"/v1/labels","api_key":"k"}}
                """).expectStatus().isOk().expectBody()
                .jsonPath("$.verdict").isEqualTo("allow")
                .jsonPath("$.entries.length()").isEqualTo(0);
    }

    @Test
    void aRuleKeyedByTheCallersAddressCountsPerAddress() {
        String ip = "198.51.100." + (1 + (int) (Math.random() * 250)) + "-" + UUID.randomUUID();
        String login = """
                {"domain":"auth","attributes":{"route":"/login","ip":"%s"}}
                """.formatted(ip);
        for (int i = 0; i < 5; i++) {
            check(login).expectStatus().isOk().expectBody().jsonPath("$.entries[0].rule").isEqualTo("login-ip")
                    .jsonPath("$.entries[0].remaining").isEqualTo(4 - i);
        }
        check(login).expectStatus().isOk().expectBody().jsonPath("$.verdict").isEqualTo("deny").jsonPath("$.entries[0].rule").isEqualTo("login-ip");
    }

    static Stream<Arguments> badChecks() {
        return Stream.of(
                Arguments.of("a found rule's identity missing", "{\"domain\":\"auth\",\"attributes\":{\"route\":\"/login\"}}", 422, "attributes.ip"),
                Arguments.of("entries beside attributes",
                        "{\"domain\":\"auth\",\"entries\":[{\"rule\":\"login-ip\",\"key\":\"k\"}],\"attributes\":{\"ip\":\"1\"}}", 422, "entries"),
                Arguments.of("no attribute", "{\"domain\":\"auth\",\"attributes\":{}}", 422, "attributes"),
                Arguments.of("cost negative", "{\"domain\":\"auth\",\"attributes\":{\"ip\":\"1\"},\"cost\":-1}", 422, "cost"),
                Arguments.of("a request-wide cost with entries", "{\"domain\":\"auth\",\"entries\":[{\"rule\":\"login-ip\",\"key\":\"k\"}],\"cost\":2}",
                        422, "cost"),
                Arguments.of("an identity too long to be a key", "{\"domain\":\"auth\",\"attributes\":{\"route\":\"/login\",\"ip\":\"" + "1".repeat(300) + "\"}}",
                        422, "attributes.ip"),
                Arguments.of("a route with a control character", "{\"domain\":\"auth\",\"attributes\":{\"route\":\"/lo\\tgin\",\"ip\":\"1\"}}",
                        422, "attributes.route"),
                Arguments.of("a cost above the rule's largest", "{\"domain\":\"public-api\",\"attributes\":{\"plan\":\"free\",\"api_key\":\"k\"},\"cost\":2}",
                        422, "entries"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badChecks")
    void aBadCheckIsAProblemNamingTheField(String why, String body, int status, String field) {
        check(body).expectStatus().isEqualTo(status).expectBody()
                .jsonPath("$.code").isEqualTo("invalid_request")
                .jsonPath("$.errors[0].field").value(value -> org.assertj.core.api.Assertions.assertThat((String) value).startsWith(field));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "{\"domain\":\"auth\",\"attributes\":{\"ip\":5}}",
            "{\"domain\":\"auth\",\"attributes\":[\"ip\"]}",
            "{\"domain\":\"auth\",\"attributes\":{\"ip\":null}}"})
    void attributesThatAreNotStringsAreRefusedAsTheRestOfTheBodyIs(String body) {
        check(body).expectStatus().value(status -> org.assertj.core.api.Assertions.assertThat(status).isIn(400, 422))
                .expectBody().jsonPath("$.code").exists();
    }
}
