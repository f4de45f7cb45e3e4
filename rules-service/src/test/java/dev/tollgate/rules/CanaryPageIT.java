package dev.tollgate.rules;

import org.junit.jupiter.api.Test;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A rule's canary on its console page, over plain HTTP as a signed-in admin: shown with both versions' deny rates
 * side by side, the rule's own edit and mode forms gone while it stands, promoted from the page, and a promote of a
 * canary that is no longer there answered with the page saying so.
 */
class CanaryPageIT extends ServiceTestBase {

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

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
        String cookie = signIn();

        HttpResponse<String> page = get(cookie, "/console/rules/" + id);

        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("id=\"canary\"").contains("version 2, on the canary pods in place of version 1")
                .contains("150/s, burst 300").contains("class=\"canary-rates\"").contains("the canary pods").contains("the other pods")
                .contains("id=\"promote-canary\"").contains("id=\"rollback-canary\"")
                .as("the rule changes by the canary's promote or rollback only").doesNotContain("id=\"save-rule\"").doesNotContain("id=\"switch-mode\"");

        HttpResponse<String> promoted = post(cookie, page.body(), "/console/rules/" + id + "/canary", "action=promote&version=2&reason=held");

        assertThat(promoted.statusCode()).as(promoted.body()).isEqualTo(302);
        Api.Response rule = api.get("/v1/rules/" + id);
        assertThat(rule.etag()).isEqualTo("\"2\"");
        assertThat(rule.json().get("rate_per_s").asInt()).isEqualTo(150);
        assertThat(get(cookie, "/console/rules/" + id).body()).doesNotContain("id=\"canary\"").contains("id=\"save-rule\"");

        HttpResponse<String> again = post(cookie, page.body(), "/console/rules/" + id + "/canary", "action=promote&version=2&reason=held");
        assertThat(again.statusCode()).isEqualTo(409);
        assertThat(again.body()).contains("id=\"errors\"").contains("has no canary");
    }

    /** An admin's session cookie, signed in through the token form as a person would. */
    private String signIn() throws Exception {
        HttpResponse<String> form = http.send(HttpRequest.newBuilder(uri("/console/login")).build(), HttpResponse.BodyHandlers.ofString());
        String cookie = cookie(form);
        String body = "who=token&token=" + URLEncoder.encode(TestTokens.token("rita", TestTokens.ADMIN, TestTokens.READ), StandardCharsets.UTF_8)
                + "&_csrf=" + URLEncoder.encode(csrf(form.body()), StandardCharsets.UTF_8);
        HttpResponse<String> signedIn = http.send(HttpRequest.newBuilder(uri("/console/login")).header("Cookie", cookie)
                .header("Content-Type", "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(signedIn.statusCode()).as(signedIn.body()).isEqualTo(302);
        return cookie(signedIn);
    }

    private HttpResponse<String> get(String cookie, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(path)).header("Cookie", cookie).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A form of {@code page} sent as the browser sends it, with the page's CSRF token. */
    private HttpResponse<String> post(String cookie, String page, String path, String fields) throws Exception {
        String body = fields + "&_csrf=" + URLEncoder.encode(csrf(page), StandardCharsets.UTF_8);
        return http.send(HttpRequest.newBuilder(uri(path)).header("Cookie", cookie).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String csrf(String page) {
        Matcher csrf = Pattern.compile("name=\"_csrf\" value=\"([^\"]+)\"").matcher(page);
        assertThat(csrf.find()).as("a CSRF field").isTrue();
        return csrf.group(1);
    }

    private static String cookie(HttpResponse<?> response) {
        return response.headers().allValues("Set-Cookie").stream().filter(c -> c.startsWith("JSESSIONID="))
                .map(c -> c.substring(0, c.indexOf(';'))).findFirst().orElseThrow();
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }
}
