package dev.tollgate.devstack;

import dev.tollgate.devstack.demo.AdminClient;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console's "why would a check be denied now?" on the dev stack as it starts: rules-service asks its first real
 * check-service pod's explain with the reader's token the stack generated, on the real Redis Cluster and PostgreSQL.
 * A key the pod denied shows on its page with the stage that denies it (the pod's deny cache, its local-first bucket or
 * the store), the pod's reason, the store's level and the pod's name.
 */
class DevStackExplainIT {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void theKeyPageShowsWhyTheFirstPodDeniesAKey() throws Exception {
        try (DevStack stack = DevStack.start("--check-instances=1", "--check-port=" + Pod.freePort(), "--rules-port=" + Pod.freePort(),
                "--rebalancer-port=" + Pod.freePort())) {
            // refills one token an hour: the deny holds for the whole test however slow the machine is
            AdminClient.Response rule = stack.admin().put("/v1/rules/explain-it", """
                    {"domain":"public-api","match":{"plan":"growth","route":"/v1/explain-it"},"algorithm":"token_bucket",\
                    "rate_per_s":1,"period_s":3600,"burst":2,"fail_mode":"open","reason":"DevStackExplainIT"}""", null);
            assertThat(rule.ok()).as(rule.body()).isTrue();
            Pod pod = Pod.of("pod 1", stack.checkServices().get(0));
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!pod.knows("public-api", "explain-it")) {
                assertThat(System.nanoTime()).as("the pod enforces the new rule").isLessThan(deadline);
                Thread.sleep(50);
            }
            String key = "acct_" + UUID.randomUUID().toString().substring(0, 8);
            for (int i = 0; i < 2; i++) {
                assertThat(pod.verdict("public-api", "explain-it", key)).as("within the burst of 2").isEqualTo("allow");
            }
            assertThat(pod.verdict("public-api", "explain-it", key)).isEqualTo("deny");

            String base = stack.rulesService().baseUrl();
            String cookie = signIn(base, stack.options().devToken());
            HttpResponse<String> page = get(base, cookie, "/console/key?key=" + enc(key));
            assertThat(page.statusCode()).as(page.body()).isEqualTo(200);
            assertThat(page.body()).contains("id=\"explain-form\"").doesNotContain(stack.readerToken());

            HttpResponse<String> panel = post(base, cookie, csrf(page.body()), "/console/key/explain",
                    "key=" + enc(key) + "&domain=public-api&rule=explain-it&cost=1");

            assertThat(panel.statusCode()).as(panel.body()).isEqualTo(200);
            String html = panel.body();
            assertThat(html).contains("Pod <code>dev-check-service-1</code>").contains("<strong>denied</strong> now")
                    .doesNotContain(stack.readerToken());
            // which of the pod's own stages denies depends on its optimizations (at one token an hour its local-first bucket
            // is empty too): each is the pod's answer, with its reason, and the store's level is the same whichever it is
            Matcher stage = Pattern.compile("<td><code>(deny_cache|store|local_bucket)</code></td>\\s*<td>denied</td>\\s*<td>([^<]*)</td>").matcher(html);
            assertThat(stage.find()).as("the pod's deny cache, local bucket or the store denies: " + html).isTrue();
            String why = switch (stage.group(1)) {
                case "deny_cache" -> "remembers the store&#39;s deny";
                case "store" -> "holds 0 of 2";
                default -> "local-first bucket for this key is empty";
            };
            assertThat(stage.group(2)).as("the %s's reason", stage.group(1)).contains(why);
            assertThat(html).contains("rl:{" + key + "}:explain-it").contains("0 of 2 left").contains("100 %");
        }
    }

    private static String signIn(String base, String token) throws Exception {
        HttpResponse<String> form = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/console/login")).build(),
                HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> signedIn = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/console/login"))
                .header("Cookie", cookie(form)).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("who=token&token=" + enc(token) + "&_csrf=" + enc(csrf(form.body())))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(signedIn.statusCode()).as(signedIn.body()).isEqualTo(302);
        return cookie(signedIn);
    }

    private static HttpResponse<String> get(String base, String cookie, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(base + path)).header("Cookie", cookie).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** As htmx sends the panel's form: only the panel comes back. */
    private static HttpResponse<String> post(String base, String cookie, String csrf, String path, String fields) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(base + path)).header("Cookie", cookie).header("HX-Request", "true")
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(fields + "&_csrf=" + enc(csrf))).build(), HttpResponse.BodyHandlers.ofString());
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

    private static String enc(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
