package dev.tollgate.check.api;

import dev.tollgate.check.SharedClusterPod;
import dev.tollgate.check.WebTestClients;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.context.annotation.Import;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

import java.util.UUID;

/** The RateLimit headers of the HTTP check, as headers and in the body, against a real Redis Cluster. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@AutoConfigureWebTestClient
@Import(WebTestClients.AutoConfigured.class)
class RateLimitHeadersIT {

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        SharedClusterPod.register(registry, "src/test/resources/rules-headers-test.yml");
    }

    @Autowired
    WebTestClient http;

    @Test
    void anAllowCarriesThePolicyAndWhatIsLeftOfTheStrictestEntry() {
        String key = "acct_" + UUID.randomUUID();
        check(twoLimits(key))
                .expectStatus().isOk()
                .expectHeader().valueEquals("RateLimit-Policy", "\"route-second\";q=1;w=1")
                .expectHeader().valueEquals("RateLimit", "\"route-second\";r=2;t=1")
                .expectHeader().doesNotExist("Retry-After")
                .expectBody()
                .jsonPath("$.verdict").isEqualTo("allow")
                .jsonPath("$.headers['RateLimit-Policy']").isEqualTo("\"route-second\";q=1;w=1")
                .jsonPath("$.headers['RateLimit']").isEqualTo("\"route-second\";r=2;t=1")
                .jsonPath("$.headers['Retry-After']").doesNotExist()
                .jsonPath("$.entries[0].quota").isEqualTo(120)
                .jsonPath("$.entries[0].window_s").isEqualTo(60)
                .jsonPath("$.entries[1].quota").isEqualTo(1)
                .jsonPath("$.entries[1].window_s").isEqualTo(1);
    }

    @Test
    void aDenyCarriesRetryAfterAndTheDenyingEntry() {
        String key = "acct_" + UUID.randomUUID();
        for (int i = 0; i < 3; i++) {
            check(twoLimits(key)).expectStatus().isOk().expectHeader().doesNotExist("Retry-After");
        }
        check(twoLimits(key))
                .expectStatus().isOk()
                .expectHeader().valueEquals("RateLimit-Policy", "\"route-second\";q=1;w=1")
                .expectHeader().valueEquals("RateLimit", "\"route-second\";r=0;t=1")
                .expectHeader().valueEquals("Retry-After", "1")
                .expectBody()
                .jsonPath("$.verdict").isEqualTo("deny")
                .jsonPath("$.headers['Retry-After']").isEqualTo("1")
                .jsonPath("$.headers['RateLimit']").isEqualTo("\"route-second\";r=0;t=1");
    }

    @Test
    void aShadowDenyNeitherDeniesNorShowsInTheHeaders() {
        String key = "acct_" + UUID.randomUUID();
        String body = """
                {"domain":"headers","entries":[
                  {"rule":"plan-minute","key":"%s"},
                  {"rule":"trial-window","key":"%s"}]}""".formatted(key, key);
        check(body).expectStatus().isOk();
        check(body)
                .expectStatus().isOk()
                .expectHeader().valueEquals("RateLimit-Policy", "\"plan-minute\";q=120;w=60")
                .expectHeader().doesNotExist("Retry-After")
                .expectBody()
                .jsonPath("$.verdict").isEqualTo("allow")
                .jsonPath("$.entries[1].verdict").isEqualTo("deny")
                .jsonPath("$.entries[1].shadow").isEqualTo(true);
    }

    @Test
    void unknownRulesAloneGetNoHeaders() {
        check("""
                {"domain":"headers","entries":[{"rule":"no-such-rule","key":"k"}]}""")
                .expectStatus().isOk()
                .expectHeader().doesNotExist("RateLimit-Policy")
                .expectHeader().doesNotExist("RateLimit")
                .expectBody().jsonPath("$.headers").isEmpty();
    }

    private static String twoLimits(String key) {
        return """
                {"domain":"headers","entries":[
                  {"rule":"plan-minute","key":"%s"},
                  {"rule":"route-second","key":"%s"}]}""".formatted(key, key);
    }

    private WebTestClient.ResponseSpec check(String body) {
        return http.post().uri("/v1/ratelimit:check")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .exchange();
    }
}
