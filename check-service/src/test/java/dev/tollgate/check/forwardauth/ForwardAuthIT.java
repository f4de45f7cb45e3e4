package dev.tollgate.check.forwardauth;

import dev.tollgate.check.CheckServiceApplication;
import dev.tollgate.testsupport.http.RawHttp;
import dev.tollgate.testsupport.redis.RedisCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The forward-auth check on a real pod and the shared Redis Cluster, as a gateway's subrequest reaches it: the
 * original request's headers, the gateways' service token, any method, any Accept.
 */
class ForwardAuthIT {

    private static final String TOKEN = "gateway-token-forward-auth-1234";
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final String RUN = UUID.randomUUID().toString().substring(0, 8);

    private static ConfigurableApplicationContext pod;
    private static int port;

    @BeforeAll
    static void start() {
        pod = new SpringApplicationBuilder(CheckServiceApplication.class)
                .web(WebApplicationType.REACTIVE)
                .logStartupInfo(false)
                .run("--server.port=0", "--server.address=127.0.0.1", "--tollgate.grpc.enabled=false",
                        "--spring.data.redis.cluster.nodes=" + RedisCluster.shared().clusterNodes(),
                        "--tollgate.redis.command-timeout=2s",
                        "--tollgate.rules.file=src/test/resources/rules-test.yml", "--tollgate.rules.service-url=",
                        "--tollgate.pods.id=forward-auth-it", "--tollgate.region.name=forward-auth-it",
                        "--management.metrics.use-global-registry=false",
                        "--tollgate.forward-auth.domain=public-api",
                        "--tollgate.access.tokens=" + TOKEN);
        port = Integer.parseInt(pod.getEnvironment().getProperty("local.server.port"));
    }

    @AfterAll
    static void stop() {
        if (pod != null) {
            pod.close();
        }
    }

    private static HttpResponse<String> send(String method, String query, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/ratelimit:forward-auth" + query))
                .timeout(Duration.ofSeconds(10))
                .method(method, method.equals("POST") ? HttpRequest.BodyPublishers.ofString("{\"the\":\"original body\"}")
                        : HttpRequest.BodyPublishers.noBody())
                .header("Authorization", "Bearer " + TOKEN);
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> get(String query, String... headers) throws Exception {
        return send("GET", query, headers);
    }

    @Test
    void aFreeKeyPassesUntilItsBurstIsSpentThenIsDeniedWithRetryAfter() throws Exception {
        String key = "acct_free_" + RUN;
        HttpResponse<String> first = get("", "X-Plan", "free", "X-Api-Key", key, "X-Original-URI", "/v1/labels");
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("RateLimit-Policy")).hasValueSatisfying(policy -> assertThat(policy).contains("free-"));
        assertThat(first.headers().firstValue("RateLimit")).isPresent();
        assertThat(first.body()).isEmpty();

        HttpResponse<String> denied = null;
        int passed = 1;
        for (int i = 0; i < 60 && denied == null; i++) {
            HttpResponse<String> answer = get("", "X-Plan", "free", "X-Api-Key", key, "X-Original-URI", "/v1/labels", "Accept", "text/html");
            if (answer.statusCode() == 200) {
                passed++;
            } else {
                denied = answer;
            }
        }
        assertThat(denied).isNotNull();
        assertThat(passed).isBetween(20, 40);
        assertThat(denied.statusCode()).isEqualTo(429);
        assertThat(denied.headers().firstValue("Retry-After")).hasValueSatisfying(wait -> assertThat(Integer.parseInt(wait)).isPositive());
        assertThat(denied.headers().firstValue("RateLimit")).isPresent();
        assertThat(denied.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(denied.body()).contains("\"code\":\"rate_limited\"");

        // the bucket refills at 10/s meanwhile: ask until the next deny
        HttpResponse<String> forNginx = get("?deny_status=403", "X-Plan", "free", "X-Api-Key", key);
        for (int i = 0; i < 30 && forNginx.statusCode() == 200; i++) {
            forNginx = get("?deny_status=403", "X-Plan", "free", "X-Api-Key", key);
        }
        assertThat(forNginx.statusCode()).isEqualTo(403);
        assertThat(forNginx.headers().firstValue("Retry-After")).isPresent();
    }

    @Test
    void headAndPostAreTheSameCheckAndTheBodyIsNotRead() throws Exception {
        String key = "acct_methods_" + RUN;
        assertThat(send("HEAD", "", "X-Plan", "growth", "X-Api-Key", key).statusCode()).isEqualTo(200);
        HttpResponse<String> post = send("POST", "", "X-Plan", "growth", "X-Api-Key", key, "Content-Type", "application/json");
        assertThat(post.statusCode()).isEqualTo(200);
        assertThat(post.headers().firstValue("RateLimit")).hasValueSatisfying(left -> assertThat(left).contains("r=19"));
    }

    @Test
    void requestsWithoutAnApiKeyShareOneLimitInsteadOfHavingNone() throws Exception {
        // the domain's own: the shared cluster keeps this run's anonymous key from another run's only by the plan
        int passed = 0;
        for (int i = 0; i < 60; i++) {
            HttpResponse<String> answer = get("?domain=public-api", "X-Plan", "free", "X-Forwarded-For", "198.51.100." + i);
            if (answer.statusCode() == 200) {
                passed++;
            }
        }
        assertThat(passed).isLessThan(45);
        assertThat(get("", "X-Plan", "free", "X-Api-Key", "acct_keyed_" + RUN).statusCode()).isEqualTo(200);
    }

    @Test
    void oddSpellingsOfARouteSpendTheRoutesLimit() throws Exception {
        String key = "acct_growth_" + RUN;
        // labels-route: Growth's /v1/labels, burst 2
        assertThat(get("", "X-Plan", "growth", "X-Api-Key", key, "X-Original-URI", "//v1/labels/").statusCode()).isEqualTo(200);
        assertThat(get("", "X-Plan", "growth", "X-Api-Key", key, "X-Original-URI", "/v1/./%6Cabels?page=2").statusCode()).isEqualTo(200);
        HttpResponse<String> third = get("", "X-Plan", "growth", "X-Api-Key", key, "X-Forwarded-Uri", "/x/../v1/labels");
        assertThat(third.statusCode()).isEqualTo(429);
        assertThat(third.headers().firstValue("RateLimit-Policy")).hasValueSatisfying(policy -> assertThat(policy).contains("labels-route"));
    }

    @Test
    void whatOnlyConfigurationSendsWrongIsADenyOrABadRequestNeverAPass() throws Exception {
        HttpResponse<String> noDomain = get("?domain=&deny_status=403", "X-Plan", "free", "X-Api-Key", "acct_nodomain_" + RUN);
        assertThat(noDomain.statusCode()).isEqualTo(403);
        assertThat(noDomain.body()).contains("\"code\":\"invalid_request\"").contains("domain");

        assertThat(get("?deny_status=200", "X-Plan", "free").statusCode()).isEqualTo(400);
        assertThat(get("?deny_status=abc", "X-Plan", "free").statusCode()).isEqualTo(400);
    }

    @Test
    void theLoginRuleIsKeyedByTheClientAddressAProxyAppended() throws Exception {
        String client = "203.0.113." + (Math.abs(RUN.hashCode()) % 250);
        int passed = 0;
        for (int i = 0; i < 7; i++) {
            // the left entry is the client's to write: a new one each time buys nothing
            HttpResponse<String> answer = get("?domain=auth", "X-Original-URI", "/login", "X-Forwarded-For", "10.9.9." + i + ", " + client);
            if (answer.statusCode() == 200) {
                passed++;
            }
        }
        assertThat(passed).isEqualTo(5);
    }

    @Test
    void noSpellingOfThePathReachesTheCheckWithoutAToken() throws Exception {
        for (String target : List.of("/v1/ratelimit:forward-auth", "//v1/ratelimit:forward-auth", "/v1/ratelimit%3Aforward-auth",
                "/v1/ratelimit%3aforward-auth", "/v1/ratelimit:forward-auth/", "/v1;x/ratelimit:forward-auth",
                "/%761/ratelimit:forward-auth", "/v1/./ratelimit:forward-auth", "/x/../v1/ratelimit:forward-auth",
                "/actuator/../v1/ratelimit:forward-auth", "/actuator/%2e%2e/v1/ratelimit:forward-auth",
                "/v1/ratelimit:forward-auth?domain=public-api", "http://127.0.0.1:" + port + "/v1/ratelimit:forward-auth")) {
            for (String method : List.of("GET", "HEAD", "POST")) {
                // read to the close: a HEAD answer's head announces a body that never comes
                String answer = RawHttp.untilClosed(port, method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        + "X-Plan: free\r\nX-Api-Key: acct_spelling\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
                assertThat(answer).as(method + " " + target).doesNotStartWith("HTTP/1.1 200").doesNotContainIgnoringCase("ratelimit-policy");
                if (!target.startsWith("/actuator")) {
                    // the actuator's paths are open, and the router answers these 404: they are no endpoint of its
                    assertThat(answer).as(method + " " + target).startsWith("HTTP/1.1 401");
                }
            }
        }
        // with the token, the router's reading of an encoded colon is the endpoint itself
        RawHttp.Answer encoded = RawHttp.exchange(port, "GET /v1/ratelimit%3Aforward-auth HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Authorization: Bearer " + TOKEN + "\r\nX-Plan: growth\r\nX-Api-Key: acct_encoded_" + RUN + "\r\nConnection: close\r\n\r\n");
        assertThat(encoded.status()).isEqualTo(200);
    }

    @Test
    void checksAreCountedByAnswer() throws Exception {
        get("", "X-Plan", "growth", "X-Api-Key", "acct_metrics_" + RUN);
        String scrape = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/prometheus")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        assertThat(scrape).contains("tollgate_forward_auth_checks_total{").contains("outcome=\"allow\"")
                .contains("uri=\"/v1/ratelimit:forward-auth\"");
    }
}
