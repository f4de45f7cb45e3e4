package dev.tollgate.rules;

import dev.tollgate.store.RedisCounterStore;
import dev.tollgate.store.RedisStoreSettings;
import dev.tollgate.store.key.UsageKeys;
import dev.tollgate.testsupport.redis.RedisCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A rule's "what if" panels over plain HTTP, on checks recorded as the pods' usage recorders write them: the edit
 * form's values simulated without saving, a form that does not validate, a shadow rule's "what if it were enforced"
 * beside its Enforce button, and a reader who may run both but POST no change under any other spelling. The panel
 * while Redis cannot be read is in StoreOutageIT, whose context has no Redis.
 */
class WhatIfPageIT extends ServiceTestBase {

    private static RedisCounterStore engine;

    @DynamicPropertySource
    static void tokenSignIn(DynamicPropertyRegistry registry) {
        registry.add("tollgate.console.token-sign-in", () -> "true");
    }

    @BeforeAll
    static void connect() {
        engine = RedisCounterStore.connect(RedisStoreSettings.of(RedisCluster.shared().seedUris()).withCommandTimeout(Duration.ofSeconds(2)));
    }

    @AfterAll
    static void disconnect() {
        engine.close();
    }

    /**
     * What the pods flushed for one rule and key in the {@code windows} windows up to the last closed one: all inside
     * the panel's shortest span (15 min) however the windows close while the test runs.
     */
    private static void recorded(String rule, String key, int windows, long checks, long denied) {
        recorded(rule, key, windows, checks, denied, 0);
    }

    /** @param level the sampling level the pods recorded at: 1 in 2^level of the rule's keys */
    private static void recorded(String rule, String key, int windows, long checks, long denied, int level) {
        long last = UsageKeys.lastClosedWindow(System.currentTimeMillis(), Duration.ofSeconds(2));
        for (int w = -windows + 1; w <= 0; w++) {
            String hash = UsageKeys.checks(rule, last + (long) w * UsageKeys.WINDOW_SECONDS);
            engine.connection().sync().hincrby(hash, "c:" + key, checks);
            if (denied > 0) {
                engine.connection().sync().hincrby(hash, "d:" + key, denied);
            }
            engine.connection().sync().hincrby(hash, "l:" + level, 1);
            engine.connection().sync().pexpire(hash, UsageKeys.CHECKS_RETENTION.toMillis());
        }
    }

    private static final String STRICTER = "version=1&ratePerS=5&periodS=1&burst=10&maxCost=1&failMode=open&reason=";

    @Test
    void showsWhatTheFormsValuesWouldDenyOfTheRecordedChecksWithoutSaving() throws Exception {
        String id = uniqueId("what-if");
        api.put("/v1/rules/" + id, tokenBucket(uniqueId("public-api"), 100, 200));
        recorded(id, "acct_busy", 6, 200, 0);
        recorded(id, "acct_quiet", 6, 5, 0);
        ConsoleHttp admin = ConsoleHttp.signIn(port, "rita", TestTokens.ADMIN, TestTokens.READ);
        String page = admin.get("/console/rules/" + id).body();
        assertThat(page).contains("id=\"what-if\"").contains("formnovalidate").doesNotContain("id=\"what-if-panel\"");

        HttpResponse<String> whatIf = admin.post(page, "/console/rules/" + id + "/what-if", STRICTER + "&span=15m");

        assertThat(whatIf.statusCode()).as(whatIf.body()).isEqualTo(200);
        String panel = whatIf.body();
        // as SimulationIT's API answer for the same traffic: 5/s, burst 10 admits 10 + 50 a window of the busy key's 200
        Matcher headline = Pattern.compile("Of <span>(\\d+)</span> checks over the last\\s+<span>15 min</span>, the rule denied"
                + " <span>(\\d+)</span>;\\s+these values would have denied <span>(\\d+)</span>\\s+± <span>(\\d+)</span>").matcher(panel);
        assertThat(headline.find()).as(panel).isTrue();
        assertThat(Long.parseLong(headline.group(1))).isEqualTo(6 * 205);
        assertThat(Long.parseLong(headline.group(2))).isZero();
        assertThat(Long.parseLong(headline.group(3))).isBetween(6 * 200 - 310 - 1L, 6 * 200 - 310 + 1L);
        assertThat(Long.parseLong(headline.group(4))).isEqualTo(10 + 6 * 51);
        assertThat(panel).contains("id=\"what-if-assumption\"").contains("spreads each window's checks evenly")
                .doesNotContain("id=\"what-if-sampling\"");
        List<List<String>> keys = rows(panel, "what-if-keys");
        assertThat(keys).as("the quiet key is not affected").hasSize(1);
        assertThat(keys.get(0).subList(0, 3)).containsExactly("acct_busy", "1200", "0");
        assertThat(rows(panel, "what-if-windows")).hasSize(6)
                .allSatisfy(window -> assertThat(window.subList(1, 3)).containsExactly("205", "0"));
        assertThat(panel).as("the form keeps the values tried").contains("id=\"ratePerS\" name=\"ratePerS\" type=\"number\" min=\"1\" required value=\"5\"")
                .contains("<option value=\"15m\" selected=\"selected\">");
        Api.Response rule = api.get("/v1/rules/" + id);
        assertThat(rule.etag()).as("nothing saved").isEqualTo("\"1\"");
        assertThat(rule.json().get("rate_per_s").asInt()).isEqualTo(100);
    }

    @Test
    void saysWhenTheRulesKeysWereSampledAndScalesItsTotals() throws Exception {
        String id = uniqueId("what-if-sampled");
        api.put("/v1/rules/" + id, tokenBucket(uniqueId("public-api"), 100, 200));
        String sampled = IntStream.range(0, 1000).mapToObj(i -> "ip-" + i).filter(key -> UsageKeys.sampled(key, 2)).findFirst().orElseThrow();
        recorded(id, sampled, 1, 200, 0, 2);
        ConsoleHttp admin = ConsoleHttp.signIn(port, "rita", TestTokens.ADMIN, TestTokens.READ);
        String page = admin.get("/console/rules/" + id).body();

        String panel = admin.post(page, "/console/rules/" + id + "/what-if", STRICTER + "&span=15m").body();

        assertThat(panel).contains("id=\"what-if-sampling\"").contains("recorded 1 in 4 of this rule").contains("the totals are the 1 key replayed times 4")
                .containsPattern("Of <span>800</span> checks");
        assertThat(rows(panel, "what-if-keys")).first().satisfies(key -> assertThat(key.subList(0, 2)).as("the key's own numbers")
                .containsExactly(sampled, "200"));
    }

    @Test
    void aFormThatDoesNotValidateShowsItsProblemsAsTheEditFormDoes() throws Exception {
        String id = uniqueId("what-if");
        api.put("/v1/rules/" + id, tokenBucket(uniqueId("public-api"), 100, 200));
        ConsoleHttp admin = ConsoleHttp.signIn(port, "rita", TestTokens.ADMIN, TestTokens.READ);
        String page = admin.get("/console/rules/" + id).body();

        HttpResponse<String> invalid = admin.post(page, "/console/rules/" + id + "/what-if",
                "version=1&ratePerS=0&periodS=1&burst=&maxCost=1&failMode=open&span=1h");

        assertThat(invalid.statusCode()).isEqualTo(422);
        assertThat(invalid.headers().firstValue("Content-Type").orElseThrow()).startsWith("text/html");
        assertThat(invalid.body()).contains("id=\"errors\"").contains("rate_per_s").contains("burst")
                .doesNotContain("id=\"what-if-panel\"").doesNotContain("Exception").contains("id=\"edit\"");
        HttpResponse<String> badFailMode = admin.post(page, "/console/rules/" + id + "/what-if",
                "version=1&ratePerS=5&periodS=1&burst=10&maxCost=1&failMode=sometimes&span=1h");
        assertThat(badFailMode.statusCode()).isEqualTo(422);
        assertThat(badFailMode.body()).contains("id=\"errors\"").contains("fail_mode");
        // not a number at all: listed with the rest, for the what-if as for a save (which it was not)
        for (String path : new String[] {"/what-if", ""}) {
            HttpResponse<String> notANumber = admin.post(page, "/console/rules/" + id + path,
                    "version=1&ratePerS=many&periodS=1&burst=10&maxCost=1&failMode=open&span=1h&reason=why");
            assertThat(notANumber.statusCode()).as(path + ": " + notANumber.body()).isEqualTo(422);
            assertThat(notANumber.body()).contains("id=\"errors\"").contains("rate_per_s").contains("must be a whole number, was &#39;many&#39;");
        }
        assertThat(api.get("/v1/rules/" + id).etag()).isEqualTo("\"1\"");
        assertThat(admin.post(page, "/console/rules/" + uniqueId("none") + "/what-if", STRICTER).statusCode())
                .as("an unknown rule, as other console pages").isEqualTo(404);
    }

    @Test
    void aShadowRulesPanelSaysWhatEnforcingItWouldHaveDeniedBesideTheEnforceButton() throws Exception {
        String id = uniqueId("what-if-shadow");
        api.put("/v1/rules/" + id, Api.json("{'domain':'" + uniqueId("public-api") + "','match':{'plan':'growth'},"
                + "'algorithm':'token_bucket','rate_per_s':5,'burst':10,'mode':'shadow'}"));
        // what a shadow rule of 5/s, burst 10 records of a key's 200 checks a window: 150 it would have denied
        recorded(id, "acct_busy", 6, 200, 150);
        recorded(id, "acct_quiet", 6, 5, 0);
        ConsoleHttp admin = ConsoleHttp.signIn(port, "rita", TestTokens.ADMIN, TestTokens.READ);
        String page = admin.get("/console/rules/" + id).body();
        assertThat(page).contains("id=\"what-if-enforced\"").contains("Enforce this rule");

        HttpResponse<String> whatIf = admin.post(page, "/console/rules/" + id + "/what-if-enforced", "span=1h");

        assertThat(whatIf.statusCode()).as(whatIf.body()).isEqualTo(200);
        String panel = whatIf.body();
        assertThat(panel).containsPattern("Enforcing it would have denied\\s+<span>900</span> of <span>1230</span> checks over the last\\s+<span>hour</span>");
        int at = panel.indexOf("id=\"what-if-panel\"");
        assertThat(panel.indexOf("id=\"switch-mode\"")).as("beside the Enforce button").isPositive().isLessThan(at);
        assertThat(panel.indexOf("id=\"mode-title\"")).isLessThan(at);
        assertThat(panel.indexOf("id=\"edit-title\"")).as("in the mode section, not the edit form's").isGreaterThan(at);
        assertThat(rows(panel, "what-if-keys")).hasSize(1).first().satisfies(key -> assertThat(key.subList(0, 3))
                .containsExactly("acct_busy", "1200", "900"));
        assertThat(rows(panel, "what-if-windows")).hasSize(6);
        assertThat(api.get("/v1/rules/" + id).json().get("mode").asString()).isEqualTo("shadow");
    }

    @Test
    void aReaderMayRunThePanelsButNoOtherSpellingLetsThemPostAChange() throws Exception {
        String id = uniqueId("what-if-reader");
        api.put("/v1/rules/" + id, Api.json("{'domain':'" + uniqueId("public-api") + "','match':{'plan':'growth'},"
                + "'algorithm':'token_bucket','rate_per_s':100,'burst':200,'mode':'shadow'}"));
        recorded(id, "acct_busy", 1, 200, 0);
        ConsoleHttp reader = ConsoleHttp.signIn(port, "rita", TestTokens.READ);
        String page = reader.get("/console/rules/" + id).body();
        assertThat(page).as("a reader tries values but cannot save or switch").contains("id=\"what-if\"").contains("id=\"what-if-enforced\"")
                .contains("id=\"what-if-form\"").doesNotContain("id=\"edit\"").doesNotContain("id=\"save-rule\"")
                .doesNotContain("id=\"switch-mode\"");

        assertThat(reader.post(page, "/console/rules/" + id + "/what-if", STRICTER + "&span=15m").body()).contains("id=\"what-if-panel\"")
                .containsPattern("<span>200</span> checks");
        assertThat(reader.post(page, "/console/rules/" + id + "/what-if-enforced", "span=15m").body()).contains("id=\"what-if-panel\"");

        String change = STRICTER + "why&mode=enforce&action=promote";
        List<String> spellings = List.of("", "/", "/mode", "/canary", "/what-if/", "/WHAT-IF", "/what-if/../mode", "/mode/what-if",
                "/what-if;x", "%2Fwhat-if", "/what-if%2F..%2Fmode", "/what-if-enforced/mode");
        List<String> let = new ArrayList<>();
        for (String spelling : spellings) {
            HttpResponse<String> refused = reader.post(page, "/console/rules/" + id + spelling, change);
            if (refused.statusCode() != 403 && refused.statusCode() != 400) {
                let.add(spelling + " → " + refused.statusCode());
            }
        }
        assertThat(let).as("every other spelling refused (403, or 400 from the firewall)").isEmpty();
        assertThat(reader.post(page, "/console/rules/" + id + "/mode", change).body()).contains("id=\"denied\"").contains("ratelimit:admin");
        Api.Response rule = api.get("/v1/rules/" + id);
        assertThat(rule.etag()).isEqualTo("\"1\"");
        assertThat(rule.json().get("mode").asString()).isEqualTo("shadow");
    }

    /** The cells of each body row of the table of {@code cssClass}. */
    private static List<List<String>> rows(String page, String cssClass) {
        Matcher table = Pattern.compile("<table class=\"" + cssClass + "\">(.*?)</table>", Pattern.DOTALL).matcher(page);
        assertThat(table.find()).as("table " + cssClass).isTrue();
        Matcher body = Pattern.compile("<tbody>(.*?)</tbody>", Pattern.DOTALL).matcher(table.group(1));
        assertThat(body.find()).isTrue();
        List<List<String>> rows = new ArrayList<>();
        Matcher row = Pattern.compile("<tr>(.*?)</tr>", Pattern.DOTALL).matcher(body.group(1));
        while (row.find()) {
            List<String> cells = new ArrayList<>();
            Matcher cell = Pattern.compile("<td>(.*?)</td>", Pattern.DOTALL).matcher(row.group(1));
            while (cell.find()) {
                cells.add(cell.group(1).replaceAll("<[^>]+>", "").trim());
            }
            rows.add(cells);
        }
        return rows;
    }
}
