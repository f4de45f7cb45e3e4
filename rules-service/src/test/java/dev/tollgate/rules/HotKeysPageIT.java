package dev.tollgate.rules;

import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.store.RedisCounterStore;
import dev.tollgate.store.RedisStoreSettings;
import dev.tollgate.store.key.RedisKeys;
import dev.tollgate.testsupport.redis.RedisCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
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
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console's hot keys page as a signed-in reader gets it, over plain HTTP (the token sign-in form, then the page's
 * HTML), so that it is tested where no browser is installed; ConsoleBrowserIT looks at it in Chromium.
 */
class HotKeysPageIT extends ServiceTestBase {

    private static final String REGION = "us-east";
    private final Rule rule = Rule.tokenBucket("hot-keys-page-it", "api", 1_000, 100_000).withMatch(new Match("growth", null));
    private final List<AutoCloseable> opened = new ArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @DynamicPropertySource
    static void tokenSignIn(DynamicPropertyRegistry registry) {
        registry.add("tollgate.console.token-sign-in", () -> "true");
    }

    @BeforeEach
    void noPodsYet() {
        try (RedisCounterStore store = RedisCounterStore.connect(RedisStoreSettings.of(RedisCluster.shared().seedUris())
                .withCommandTimeout(Duration.ofSeconds(2)))) {
            var redis = store.connection().sync();
            for (String pod : redis.zrange(RedisKeys.podRegistry(REGION), 0, -1)) {
                redis.del(RedisKeys.podHotKeys(REGION, pod));
            }
            redis.del(RedisKeys.podRegistry(REGION));
        }
    }

    @AfterEach
    void stopPods() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        // what the pods left, so that a later test of this JVM (the console's browser test) sees its own pods only
        noPodsYet();
    }

    @Test
    void showsTheFleetsHottestKeysWithShareAndPodsAndTheHottestSlots() throws Exception {
        String hot = uniqueId("acct_hot");
        Pod a = pod("pod-a");
        Pod b = pod("pod-b");
        a.check(hot, 30);
        b.check(hot, 10);
        b.check("acct_<cool>", 10);
        a.publish();
        b.publish();

        String page = page(signIn(), "/console/hot-keys");

        assertThat(page).contains("<h1>Hot keys</h1>").contains("2 of 2 pods reported").contains("50 store calls");
        List<List<String>> keys = rows(page, "hot-keys");
        assertThat(keys.get(0)).containsExactly(hot, "40", "80.0 %", "2", Integer.toString(RedisKeys.slot(hot)));
        // the key is the page's text, escaped, and links to the key's page
        assertThat(keys.get(1)).containsExactly("acct_&lt;cool&gt;", "10", "20.0 %", "1", Integer.toString(RedisKeys.slot("acct_<cool>")));
        assertThat(page).contains("/console/key?key=" + hot);
        assertThat(rows(page, "hot-slots").get(0)).startsWith(Integer.toString(RedisKeys.slot(hot)));
        // the part that refreshes itself every 5 s is the same section
        assertThat(page(signIn(), "/console/hot-keys/live")).startsWith("<section id=\"live\"").contains(hot);
    }

    @Test
    void saysWhyItIsEmptyWhenNoPodReported() throws Exception {
        pod("pod-quiet");

        String page = page(signIn(), "/console/hot-keys");

        assertThat(page).contains("0 of 1 pods reported")
                .contains("None of the 1 registered pods has published its hot keys in the last 30 s.")
                .doesNotContain("class=\"hot-keys\"");
    }

    @Test
    void isLinkedFromEveryPagesNavigation() throws Exception {
        assertThat(page(signIn(), "/console/rules")).contains("href=\"/console/hot-keys\"");
    }

    private Pod pod(String id) {
        Pod pod = new Pod(REGION, id, rule);
        opened.add(pod);
        return pod;
    }

    /** A reader's session cookie, signed in through the token form as a person would. */
    private String signIn() throws Exception {
        HttpResponse<String> form = http.send(HttpRequest.newBuilder(uri("/console/login")).build(), HttpResponse.BodyHandlers.ofString());
        String cookie = cookie(form);
        Matcher csrf = Pattern.compile("name=\"_csrf\" value=\"([^\"]+)\"").matcher(form.body());
        assertThat(csrf.find()).as("the sign-in form's CSRF field").isTrue();
        String body = "who=token&token=" + URLEncoder.encode(TestTokens.token("rita", TestTokens.READ), StandardCharsets.UTF_8)
                + "&_csrf=" + URLEncoder.encode(csrf.group(1), StandardCharsets.UTF_8);
        HttpResponse<String> signedIn = http.send(HttpRequest.newBuilder(uri("/console/login")).header("Cookie", cookie)
                .header("Content-Type", "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(signedIn.statusCode()).as(signedIn.body()).isEqualTo(302);
        return cookie(signedIn);
    }

    private String page(String cookie, String path) throws Exception {
        HttpResponse<String> page = http.send(HttpRequest.newBuilder(uri(path)).header("Cookie", cookie).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(page.statusCode()).as(page.body()).isEqualTo(200);
        return page.body().strip();
    }

    private static String cookie(HttpResponse<?> response) {
        return response.headers().allValues("Set-Cookie").stream().filter(c -> c.startsWith("JSESSIONID="))
                .map(c -> c.substring(0, c.indexOf(';'))).findFirst().orElseThrow();
    }

    /** The cells' texts of each body row of the table with that class, tags dropped. */
    private static List<List<String>> rows(String page, String tableClass) {
        int table = page.indexOf("<table class=\"" + tableClass + "\"");
        assertThat(table).as("table " + tableClass).isNotNegative();
        String body = page.substring(page.indexOf("<tbody>", table), page.indexOf("</tbody>", table));
        List<List<String>> rows = new ArrayList<>();
        Matcher row = Pattern.compile("(?s)<tr>(.*?)</tr>").matcher(body);
        while (row.find()) {
            List<String> cells = new ArrayList<>();
            Matcher cell = Pattern.compile("(?s)<t[hd][^>]*>(.*?)</t[hd]>").matcher(row.group(1));
            while (cell.find()) {
                cells.add(cell.group(1).replaceAll("<[^>]+>", "").strip());
            }
            rows.add(cells);
        }
        return rows;
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }
}
