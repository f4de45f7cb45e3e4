package dev.tollgate.devstack.demo;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The design's example rules, loaded through rules-service's admin API exactly as an operator would:
 * the three plans' token buckets, a route limit, the login log that fails closed, and Free's daily quota.
 */
public final class DemoRules {

    /** One demo rule: its id, what it means in a sentence, and its PUT body. */
    public record DemoRule(String id, String summary, String json) {
    }

    public static final List<DemoRule> RULES = List.of(
            tokenBucket("free-global", "Free plan: 10/s, burst 20", "free", null, 10, 20, 1),
            tokenBucket("growth-global", "Growth plan: 100/s, burst 200", "growth", null, 100, 200, 10),
            tokenBucket("enterprise-global", "Enterprise plan: 1,000/s, burst 2,000", "enterprise", null, 1000, 2000, 100),
            tokenBucket("labels-route", "Growth's /v1/labels route: 5/s, burst 15", "growth", "/v1/labels", 5, 15, 1),
            new DemoRule("login-ip", "login: 5 attempts per 60 s per IP, sliding log, fails closed", """
                    {"domain":"auth","match":{"route":"/login"},"identity":"ip","algorithm":"sliding_log",\
                    "limit":5,"window_s":60,"fail_mode":"closed","reason":"dev-stack demo"}"""),
            new DemoRule("free-daily", "Free plan: 10,000 a day, fixed window (UTC days)", """
                    {"domain":"public-api","match":{"plan":"free"},"algorithm":"fixed_window",\
                    "limit":10000,"window_s":86400,"reason":"dev-stack demo"}"""));

    private DemoRules() {
    }

    /**
     * PUTs every demo rule (each a create: the dev stack's database is new).
     *
     * @return each rule's ETag (its version), for the walkthrough's If-Match example
     * @throws IllegalStateException naming the rule and rules-service's answer when one is refused
     */
    public static Map<String, String> load(AdminClient admin) {
        Map<String, String> etags = new LinkedHashMap<>();
        for (DemoRule rule : RULES) {
            AdminClient.Response response = admin.put("/v1/rules/" + rule.id(), rule.json(), null);
            if (!response.ok()) {
                throw new IllegalStateException("rules-service refused demo rule " + rule.id() + " with " + response.status() + ": " + response.body());
            }
            etags.put(rule.id(), response.etag());
        }
        return etags;
    }

    private static DemoRule tokenBucket(String id, String summary, String plan, String route, int rate, int burst, int maxCost) {
        String match = route == null ? "{\"plan\":\"" + plan + "\"}" : "{\"plan\":\"" + plan + "\",\"route\":\"" + route + "\"}";
        return new DemoRule(id, summary, """
                {"domain":"public-api","match":%s,"algorithm":"token_bucket","rate_per_s":%d,"burst":%d,\
                "max_cost":%d,"fail_mode":"open","reason":"dev-stack demo"}""".formatted(match, rate, burst, maxCost));
    }
}
