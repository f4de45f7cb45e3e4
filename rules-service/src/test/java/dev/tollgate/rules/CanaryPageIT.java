package dev.tollgate.rules;

import org.junit.jupiter.api.Test;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A rule's canary on its console page, over plain HTTP as a signed-in admin: shown with both versions' deny rates
 * side by side, the rule's own edit and mode forms gone while it stands, promoted from the page, and a promote of a
 * canary that is no longer there answered with the page saying so.
 */
class CanaryPageIT extends ServiceTestBase {

    @DynamicPropertySource
    static void tokenSignIn(DynamicPropertyRegistry registry) {
        registry.add("tollgate.console.token-sign-in", () -> "true");
    }

    @Test
    void showsTheCanaryBesideTheRuleAndPromotesItFromThePage() throws Exception {
        String id = uniqueId("canary-page");
        api.put("/v1/rules/" + id, tokenBucket("public-api", 100, 200));
        Api.Response canary = api.request("PUT", "/v1/rules/" + id + "?rollout=canary").ifMatch(1)
                .body(Api.json("{'domain':'public-api','match':{'plan':'growth'},'algorithm':'token_bucket','rate_per_s':150,'burst':300}")).send();
        assertThat(canary.status).as(canary.body).isEqualTo(201);
        ConsoleHttp console = ConsoleHttp.signIn(port, "rita", TestTokens.ADMIN, TestTokens.READ);

        HttpResponse<String> page = console.get("/console/rules/" + id);

        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("id=\"canary\"").contains("version 2, on the canary pods in place of version 1")
                .contains("150/s, burst 300").contains("class=\"canary-rates\"").contains("the canary pods").contains("the other pods")
                .contains("id=\"promote-canary\"").contains("id=\"rollback-canary\"")
                .as("the rule changes by the canary's promote or rollback only").doesNotContain("id=\"save-rule\"").doesNotContain("id=\"switch-mode\"");

        HttpResponse<String> promoted = console.post(page.body(), "/console/rules/" + id + "/canary", "action=promote&version=2&reason=held");

        assertThat(promoted.statusCode()).as(promoted.body()).isEqualTo(302);
        Api.Response rule = api.get("/v1/rules/" + id);
        assertThat(rule.etag()).isEqualTo("\"2\"");
        assertThat(rule.json().get("rate_per_s").asInt()).isEqualTo(150);
        assertThat(console.get("/console/rules/" + id).body()).doesNotContain("id=\"canary\"").contains("id=\"save-rule\"");

        HttpResponse<String> again = console.post(page.body(), "/console/rules/" + id + "/canary", "action=promote&version=2&reason=held");
        assertThat(again.statusCode()).isEqualTo(409);
        assertThat(again.body()).contains("id=\"errors\"").contains("has no canary");
    }
}
