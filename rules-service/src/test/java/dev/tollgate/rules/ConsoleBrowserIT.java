package dev.tollgate.rules;

import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.testsupport.postgres.Postgres;
import dev.tollgate.testsupport.redis.RedisCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.Cookie;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.Select;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The support console end to end, in a real browser (Debian's headless Chromium), against this service
 * on a real PostgreSQL with a pod (the engine, its watch and its usage recorder) spending on the real
 * Redis Cluster: what support does on a call, and what it must not be able to do. Each page is saved
 * under {@code target/console-screenshots/}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleBrowserIT extends ServiceTestBase {

    /** Its own database, so the rules list shows this test's rules only. */
    private static final String DATABASE = Postgres.shared().newDatabase("console");
    private static final String DOMAIN = "public-api";
    private static final String KEY = "acct_launch_7Q2";

    private Api admin;
    private Browser browser;
    private TestPod pod;

    @DynamicPropertySource
    static void console(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", () -> DATABASE);
        registry.add("tollgate.console.token-sign-in", () -> "true");
    }

    @BeforeAll
    void startBrowserAndPod() {
        Browser.assumeInstalled();
        admin = new Api(port, TestTokens.token("alice", TestTokens.ADMIN, TestTokens.READ));
        put("growth-global", "{'domain':'public-api','match':{'plan':'growth'},'algorithm':'token_bucket','rate_per_s':100,'burst':200,"
                + "'reason':'Growth plan: 100/s'}");
        put("labels-route", "{'domain':'public-api','match':{'plan':'growth','route':'/v1/labels'},'algorithm':'token_bucket',"
                + "'rate_per_s':5,'burst':15,'mode':'shadow','reason':'labels are expensive: watch before enforcing'}");
        put("free-daily", "{'domain':'public-api','match':{'plan':'free'},'algorithm':'fixed_window','limit':10000,'window_s':86400,"
                + "'reason':'daily quota'}");
        put("login-ip", "{'domain':'auth','match':{'route':'/login'},'identity':'ip','algorithm':'sliding_log','limit':5,'window_s':60,"
                + "'fail_mode':'closed','reason':'credential stuffing'}");
        // what the budget rebalancer writes for a key it has seen in two regions
        jdbc.sql("INSERT INTO region_budgets (rule_id, limit_key, region, share) VALUES ('growth-global', ?, 'us-east', 0.6),"
                + " ('growth-global', ?, 'eu-west', 0.4)").params(KEY, KEY).update();
        pod = new TestPod(port, TestTokens.token("pod-us-east-1", TestTokens.WATCH), "us-east", RedisCluster.shared().seedUris(), DOMAIN,
                List.of(CheckEntry.of("growth-global", KEY, 1), CheckEntry.of("labels-route", KEY, 1)), 20);
        browser = Browser.open("http://127.0.0.1:" + port);
    }

    @AfterAll
    void stop() throws InterruptedException {
        if (browser != null) {
            browser.close();
        }
        if (pod != null) {
            pod.close();
        }
    }

    @Test
    @Order(1)
    void findsTheAccountAndShowsItsBucketsRateAndSharesLive() {
        browser.go("/console/");
        assertThat(browser.driver().getCurrentUrl()).as("not signed in: the sign-in page").endsWith("/console/login");
        browser.screenshot("01-sign-in");
        browser.signIn(TestTokens.token("alice", TestTokens.ADMIN, TestTokens.READ));
        assertThat(browser.find("header .who").getText()).contains("alice").contains("can change");
        browser.screenshot("02-find-a-key");

        browser.find("#q").sendKeys("launch");
        browser.andWaitForNewPage(() -> browser.find("form.search button").click());
        List<WebElement> results = browser.driver().findElements(By.cssSelector(".results li a"));
        assertThat(results).extracting(WebElement::getText).contains(KEY);
        browser.screenshot("03-search");

        browser.andWaitForNewPage(() -> results.stream().filter(a -> a.getText().equals(KEY)).findFirst().orElseThrow().click());
        assertThat(browser.find("h1").getText()).contains(KEY);
        assertThat(rowTexts("table.buckets tbody tr")).anySatisfy(row -> assertThat(row).startsWith("growth-global").contains("token_bucket")
                        .contains("/ 120").contains("60 %"))
                .anySatisfy(row -> assertThat(row).startsWith("labels-route").contains("shadow"))
                .anySatisfy(row -> assertThat(row).startsWith("free-daily").contains("new window in"))
                .anySatisfy(row -> assertThat(row).startsWith("login-ip").contains("sliding_log"));
        assertThat(rowTexts("section[aria-labelledby=shares-title] tbody tr"))
                .containsExactlyInAnyOrder("growth-global eu-west 40 %", "growth-global us-east (this region) 60 %");
        // the pod's checks reach the chart: its usage recorder flushes every second, the section refreshes every 5 s
        browser.await(30, d -> d.findElements(By.cssSelector("#live svg polyline")).size() >= 1
                && d.findElement(By.cssSelector("#live figcaption")).getText().matches("(?s).*growth-global [1-9][0-9.]*/s.*"));
        assertThat(browser.text("#live svg desc")).startsWith("Requests per second admitted in this region");
        browser.await(20, d -> d.findElement(By.cssSelector("#live figcaption")).getText().contains("growth-global")
                && d.findElements(By.cssSelector("#live svg polyline")).get(0).getAttribute("points").split(" ").length >= 3);
        browser.screenshot("04-key");
    }

    @Test
    @Order(2)
    void raisesALimitAndSeesThePodEnforceItsRevisionThenEndsItEarly() {
        browser.signIn(TestTokens.token("alice", TestTokens.ADMIN, TestTokens.READ));
        browser.go("/console/key?key=" + KEY);
        new Select(browser.find("#rule")).selectByValue("growth-global");
        browser.find("#ratePerS").sendKeys("500");
        browser.find("#burst").sendKeys("1000");
        browser.find("#reason").sendKeys("launch week, ticket 4711");
        browser.andWaitForNewPage(() -> browser.find("#raise button").click());

        assertThat(rowTexts("table.overrides tbody tr")).singleElement().asString()
                .startsWith("growth-global 500/s 1000").contains("launch week, ticket 4711");
        assertThat(rowTexts("table.buckets tbody tr")).anySatisfy(row -> assertThat(row).startsWith("growth-global override")
                .contains("500/s, burst 600"));
        String saved = browser.text("#revision-status, [role=status]");
        long revision = Long.parseLong(number("Saved at revision (\\d+)", saved));
        browser.await(20, d -> d.findElement(By.cssSelector("#revision-status")).getText().contains("Every pod enforces it: 1 of 1"));
        assertThat(pod.revision()).as("the pod applied the override's revision").isGreaterThanOrEqualTo(revision);
        browser.screenshot("05-override-reached-the-pods");

        browser.find("#end-reason-growth-global").sendKeys("launch over early");
        browser.andWaitForNewPage(() -> browser.find("table.overrides button").click());
        assertThat(browser.driver().findElements(By.cssSelector("table.overrides"))).isEmpty();
        assertThat(admin.get("/v1/overrides?account_id=" + KEY).json()).isEmpty();
        browser.await(20, d -> d.findElement(By.cssSelector("#revision-status")).getText().contains("Every pod enforces it"));
    }

    @Test
    @Order(3)
    void anEditBasedOnAStaleVersionShowsTheConflictAndTheNewerVersion() {
        browser.signIn(TestTokens.token("alice", TestTokens.ADMIN, TestTokens.READ));
        browser.go("/console/rules");
        assertThat(rowTexts("table.rules tbody tr")).anySatisfy(row -> assertThat(row).startsWith("growth-global").endsWith("v1"));
        browser.screenshot("06-rules");

        browser.andWaitForNewPage(() -> browser.driver().findElement(By.linkText("growth-global")).click());
        WebElement burst = browser.find("#burst");
        burst.clear();
        burst.sendKeys("300");
        browser.find("#edit-reason").sendKeys("bigger bursts for Growth");
        // meanwhile, someone else changes the rule through the API
        Api.Response bob = new Api(port, TestTokens.token("bob", TestTokens.ADMIN)).request("PUT", "/v1/rules/growth-global").ifMatch(1)
                .body(Api.json("{'domain':'public-api','match':{'plan':'growth'},'algorithm':'token_bucket','rate_per_s':120,'burst':200,"
                        + "'reason':'Growth plan now 120/s'}")).send();
        assertThat(bob.status).as(bob.toString()).isEqualTo(200);

        browser.andWaitForNewPage(() -> browser.find("#save-rule").click());
        assertThat(browser.find("#conflict").getText()).contains("You edited version 1; it is now version 2");
        assertThat(browser.find("#current-limit").getText()).isEqualTo("120/s, burst 200");
        assertThat(browser.find("#burst").getAttribute("value")).as("the edit is kept").isEqualTo("300");
        assertThat(browser.find("#ratePerS").getAttribute("value")).as("bob's new rate is not reverted").isEqualTo("120");
        assertThat(browser.find("ol.history li").getText()).contains("bob").contains("Growth plan now 120/s").contains("rate_per_s");
        browser.screenshot("07-rule-conflict");

        browser.andWaitForNewPage(() -> browser.find("#save-rule").click());
        assertThat(browser.driver().findElements(By.id("conflict"))).isEmpty();
        assertThat(browser.find("h1").getText()).contains("version 3");
        assertThat(browser.find("#current-limit").getText()).isEqualTo("120/s, burst 300");
        WebElement latest = browser.find("ol.history li");
        assertThat(latest.getText()).contains("replace rule v2 → v3 by alice").contains("bigger bursts for Growth");
        assertThat(rowTexts("ol.history li:first-child table.diff tbody tr")).containsExactly("burst 200 300");
        browser.screenshot("08-rule-history");
    }

    @Test
    @Order(4)
    void switchesAShadowRuleToEnforceWithItsShadowDenyRateBeside() {
        browser.signIn(TestTokens.token("alice", TestTokens.ADMIN, TestTokens.READ));
        browser.go("/console/rules/labels-route");
        assertThat(browser.find("#mode").getText()).isEqualTo("shadow");
        // the pod sends 20 checks/s against a 5/s shadow rule: it would deny about 15/s, and reports them every second
        browser.await(40, d -> {
            d.navigate().refresh();
            return d.findElement(By.cssSelector("#shadow-rate")).getText().matches("(?s).*[1-9][0-9.]*/s in the (last closed|current).*");
        });
        browser.screenshot("09-rule-shadow");

        browser.find("#mode-reason").sendKeys("shadow denies are the abusers we expected");
        browser.andWaitForNewPage(() -> browser.find("#switch-mode").click());
        assertThat(browser.find("#mode").getText()).isEqualTo("enforce");
        assertThat(browser.find("ol.history li").getText()).contains("enforce rule").contains("shadow denies are the abusers we expected");
        assertThat(rowTexts("ol.history li:first-child table.diff tbody tr")).containsExactly("mode shadow enforce");
        JsonNode rule = admin.get("/v1/rules/labels-route").json();
        assertThat(rule.get("mode").asString()).isEqualTo("enforce");
        browser.await(20, d -> d.findElement(By.cssSelector("#revision-status")).getText().contains("Every pod enforces it"));
    }

    @Test
    @Order(5)
    void aReadOnlyUserSeesNoChangeFormsAndIsRefusedAChange() {
        browser.signIn(TestTokens.token("rita", TestTokens.READ));
        assertThat(browser.find("header .who").getText()).contains("rita").contains("read-only");
        browser.go("/console/key?key=" + KEY);
        assertThat(browser.driver().findElements(By.id("raise"))).as("no raise form for a reader").isEmpty();
        browser.go("/console/rules/growth-global");
        assertThat(browser.driver().findElements(By.id("edit"))).isEmpty();
        browser.screenshot("10-read-only");

        // the same form an admin would post, with a valid CSRF token: refused for the scope alone
        browser.andWaitForNewPage(() -> browser.driver().executeScript(
                "const form = document.createElement('form'); form.method = 'post'; form.action = '/console/rules/growth-global/mode';"
                        + "const headers = JSON.parse(document.body.getAttribute('hx-headers'));"
                        + "for (const [name, value] of [['mode', 'shadow'], ['reason', 'just looking'], ['_csrf', Object.values(headers)[0]]]) {"
                        + "  const input = document.createElement('input'); input.type = 'hidden'; input.name = name; input.value = value;"
                        + "  form.appendChild(input); }"
                        + "document.body.appendChild(form); form.submit();"));
        assertThat(browser.find("#denied").getText()).contains("signed in read-only").contains("ratelimit:admin");
        browser.screenshot("11-read-only-refused");
        assertThat(admin.get("/v1/rules/growth-global").json().get("mode").asString()).isEqualTo("enforce");
    }

    @Test
    @Order(6)
    void aChangeWithoutTheCsrfTokenIsRefusedAndTheSameChangeWithItIsMade() throws Exception {
        browser.signIn(TestTokens.token("alice", TestTokens.ADMIN, TestTokens.READ));
        browser.go("/console/key?key=" + KEY);
        Cookie session = browser.driver().manage().getCookieNamed("JSESSIONID");
        String csrf = number("\"X-CSRF-TOKEN\":\"([^\"]+)\"", browser.find("body").getAttribute("hx-headers"));
        String form = "key=" + KEY + "&rule=growth-global&ratePerS=300&burst=400&expiresAt=2030-01-01T00:00&reason=forged";

        HttpResponse<String> forged = post("/console/key/overrides", session, null, form);
        assertThat(forged.statusCode()).isEqualTo(403);
        assertThat(forged.body()).contains("no valid CSRF token");
        assertThat(admin.get("/v1/overrides?account_id=" + KEY).json()).as("nothing was changed").isEmpty();

        HttpResponse<String> genuine = post("/console/key/overrides", session, csrf, form.replace("forged", "with the page's token"));
        assertThat(genuine.statusCode()).as(genuine.body()).isEqualTo(302);
        assertThat(admin.get("/v1/overrides?account_id=" + KEY).json()).singleElement()
                .satisfies(o -> assertThat(o.get("reason").asString()).isEqualTo("with the page's token"));
        admin.delete("/v1/overrides/" + KEY + "/growth-global?reason=test%20done");
    }

    @Test
    @Order(7)
    void aTokenSessionEndsAtTheTokensExpiryAndSignsInAgainAsWithNoSession() throws Exception {
        Instant expiry = clock.instant().plus(Duration.ofMinutes(2));
        browser.signIn(TestTokens.expiringAt(expiry, "alice", TestTokens.ADMIN, TestTokens.READ));
        browser.go("/console/key?key=" + KEY);
        Cookie session = browser.driver().manage().getCookieNamed("JSESSIONID");

        clock.advance(Duration.between(clock.instant(), expiry).minusSeconds(30));
        browser.go("/console/rules");
        assertThat(browser.driver().getCurrentUrl()).as("30 s before the token's exp: still signed in").endsWith("/console/rules");

        clock.advance(Duration.between(clock.instant(), expiry));
        browser.go("/console/rules");
        assertThat(browser.driver().getCurrentUrl()).as("at the token's exp: the sign-in page").endsWith("/console/login");
        assertThat(browser.driver().findElements(By.cssSelector("header .who"))).isEmpty();
        HttpResponse<String> replayed = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                        + "/console/rules")).header("Cookie", session.getName() + "=" + session.getValue()).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(replayed.statusCode()).as("the expired session's cookie").isEqualTo(302);
        assertThat(replayed.headers().firstValue("Location").orElseThrow()).endsWith("/console/login");

        // a token that is still valid signs in again, as with no session at all
        browser.signIn(TestTokens.expiringAt(clock.instant().plus(Duration.ofMinutes(5)), "alice", TestTokens.READ));
        assertThat(browser.find("header .who").getText()).contains("alice").contains("read-only");
    }

    @Test
    @Order(8)
    void showsThePodsHotKeysWithTheirShareAndSlotAndRefreshesThem() {
        browser.signIn(TestTokens.token("alice", TestTokens.READ));
        browser.go("/console/");
        browser.andWaitForNewPage(() -> browser.driver().findElement(By.linkText("Hot keys")).click());
        assertThat(browser.find("h1").getText()).isEqualTo("Hot keys");
        // the pod publishes every second; the section refreshes every 5 s
        browser.await(30, d -> d.findElements(By.cssSelector("table.hot-keys tbody tr th")).stream()
                .anyMatch(th -> th.getText().equals(KEY)));
        assertThat(rowTexts("table.hot-keys tbody tr")).anySatisfy(row -> assertThat(row)
                .matches(KEY + " [0-9]+ [0-9.]+ % 1 " + dev.tollgate.store.key.RedisKeys.slot(KEY)));
        assertThat(browser.text("#pods")).contains("1 of 1 pods reported");
        assertThat(rowTexts("table.hot-slots tbody tr")).anySatisfy(row -> assertThat(row)
                .startsWith(Integer.toString(dev.tollgate.store.key.RedisKeys.slot(KEY))));
        browser.screenshot("12-hot-keys");
        browser.andWaitForNewPage(() -> browser.driver().findElement(By.linkText(KEY)).click());
        assertThat(browser.find("h1").getText()).contains(KEY);
    }

    private HttpResponse<String> post(String path, Cookie session, String csrf, String form) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Cookie", session.getName() + "=" + session.getValue())
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form));
        if (csrf != null) {
            request.header("X-CSRF-TOKEN", csrf);
        }
        return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private void put(String id, String singleQuotedJson) {
        Api.Response response = admin.put("/v1/rules/" + id, Api.json(singleQuotedJson));
        assertThat(response.status).as(response.toString()).isEqualTo(201);
    }

    /** The rows' texts, read again when a poll swaps the table while they are read (as {@link Browser#text} does). */
    private List<String> rowTexts(String css) {
        return browser.await(10, d -> d.findElements(By.cssSelector(css)).stream()
                .map(row -> row.getText().replaceAll("\\s+", " ").trim())
                .toList());
    }

    private static String number(String regex, String text) {
        Matcher matcher = Pattern.compile(regex).matcher(text);
        assertThat(matcher.find()).as("'" + regex + "' in: " + text).isTrue();
        return matcher.group(1);
    }
}
