package dev.tollgate.rules;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.openqa.selenium.By;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Signing in to the console as production does: OAuth2 login, authorization code with PKCE, against the
 * same issuer whose JWTs the API takes (the loopback identity provider of {@link TestTokens}, which
 * refuses a code exchange without the verifier of the challenge it was given). The scopes the issuer
 * grants decide what the console allows, and the API beside it still answers bearer tokens only.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleSignInIT extends ServiceTestBase {

    private Browser browser;

    @DynamicPropertySource
    static void oauth2Login(DynamicPropertyRegistry registry) {
        String client = "spring.security.oauth2.client.registration.tollgate.";
        registry.add(client + "client-id", () -> "tollgate-console");
        registry.add(client + "client-secret", () -> "console-secret");
        registry.add(client + "client-name", () -> "the test identity provider");
        registry.add(client + "authorization-grant-type", () -> "authorization_code");
        registry.add(client + "redirect-uri", () -> "{baseUrl}/console/login/oauth2/code/{registrationId}");
        registry.add(client + "scope", () -> "openid,ratelimit:read,ratelimit:admin");
        registry.add("spring.security.oauth2.client.provider.tollgate.issuer-uri", TestTokens::issuer);
    }

    @BeforeAll
    void startBrowser() {
        Browser.assumeInstalled();
        browser = Browser.open("http://127.0.0.1:" + port);
    }

    @AfterAll
    void stop() {
        if (browser != null) {
            browser.close();
        }
    }

    @Test
    void signsInThroughTheIssuerWithPkceAndGetsTheScopesItGrants() {
        // signed out whichever test ran before: the methods have no set order
        browser.driver().manage().deleteAllCookies();
        TestTokens.SignIns.signInAs("sam", TestTokens.READ);
        browser.go("/console/rules");
        assertThat(browser.driver().findElements(By.id("token-sign-in"))).as("no token form outside the dev profile").isEmpty();
        browser.screenshot("00-sign-in-oauth2");

        browser.andWaitForNewPage(() -> browser.driver().findElement(By.linkText("Sign in with the test identity provider")).click());

        assertThat(TestTokens.SignIns.lastAuthorization).containsEntry("code_challenge_method", "S256").containsKey("code_challenge")
                .containsEntry("client_id", "tollgate-console");
        // Spring Security marks the replayed request with ?continue
        assertThat(URI.create(browser.driver().getCurrentUrl()).getPath()).as("back where the person was going").isEqualTo("/console/rules");
        assertThat(browser.find("header .who").getText()).contains("sam").contains("read-only");
    }

    @Test
    void anAdminOfTheIssuerMayChange() {
        browser.driver().manage().deleteAllCookies();
        TestTokens.SignIns.signInAs("ada", TestTokens.READ, TestTokens.ADMIN);
        browser.go("/console/login");
        browser.andWaitForNewPage(() -> browser.driver().findElement(By.linkText("Sign in with the test identity provider")).click());

        assertThat(browser.find("header .who").getText()).contains("ada").contains("can change");
    }

    @Test
    void theApiBesideItStillTakesBearerTokensOnlyAndNeverRedirectsToTheLogin() throws Exception {
        HttpResponse<String> anonymous = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/rules")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(anonymous.headers().firstValue("Content-Type").orElseThrow()).startsWith("application/problem+json");
        assertThat(api.get("/v1/rules").status).isEqualTo(200);
    }
}
