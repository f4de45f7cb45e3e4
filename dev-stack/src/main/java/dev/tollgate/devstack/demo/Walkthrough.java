package dev.tollgate.devstack.demo;

import java.time.Clock;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What the dev stack prints once it is ready: where everything is, the admin token, and curl commands to
 * paste, in the order of the README's five-minute walkthrough (allow, one limit across pods, a new rule,
 * an override, usage, a rule change, shadow, login).
 *
 * @param host        where curl reaches the services
 * @param checkPorts  the check-service pods
 * @param rulesPort   rules-service
 * @param token       rules-service's dev token
 * @param ruleEtags   the demo rules' ETags, for the If-Match examples (empty without demo rules)
 */
public record Walkthrough(String host, List<Integer> checkPorts, int rulesPort, String token, Map<String, String> ruleEtags) {

    private static final int LOOP_CHECKS = 30;

    /** The curl commands; {@code clock} dates the example override's expiry a week ahead. */
    public String commands(Clock clock) {
        String check = "http://" + host + ":" + checkPorts.get(0) + "/v1/ratelimit:check";
        String lastPod = "http://" + host + ":" + checkPorts.get(checkPorts.size() - 1) + "/v1/ratelimit:check";
        String rules = "http://" + host + ":" + rulesPort;
        String auth = "-H 'Authorization: Bearer " + token + "'";
        String json = "-H 'Content-Type: application/json'";
        String verdict = "grep -o '\"verdict\":\"[a-z]*\"' | head -1";
        // one curl process for the whole loop, so that the bucket's refill during the loop stays small
        String pods = checkPorts.stream().map(String::valueOf).collect(Collectors.joining(","));
        int perPod = (LOOP_CHECKS + checkPorts.size() - 1) / checkPorts.size();
        String freeVersion = ruleEtags.getOrDefault("free-global", "\"1\"");
        String labelsVersion = ruleEtags.getOrDefault("labels-route", "\"1\"");
        String expires = clock.instant().plus(Duration.ofDays(7)).truncatedTo(ChronoUnit.SECONDS).toString();
        String across = checkPorts.size() > 1
                ? "%d checks of one Free account on each pod, pod after pod.\n   About 20-25 pass in all (the burst of 20, and the 10/s refill while curl runs); the rest are denied, on whichever pod".formatted(perPod)
                : "%d checks of one Free account.\n   About 20-25 pass (the burst of 20, and the 10/s refill while curl runs); the rest are denied".formatted(perPod);
        return """
                1. A check that is allowed: a Growth account's plan limit and its route limit, spent together.
                   curl -s -X POST %1$s %2$s \\
                     -d '{"domain":"public-api","entries":[{"rule":"growth-global","key":"acct_7Q2"},{"rule":"labels-route","key":"acct_7Q2"}]}'; echo

                2. One limit across pods: %3$s.
                   curl -s -X POST "http://%4$s:{%5$s}/v1/ratelimit:check?n=[1-%6$d]" %2$s -d '{"domain":"public-api","entries":[{"rule":"free-global","key":"acct_free_1"}]}' \\
                     -w ' %%{url_effective}\\n' | sed -E 's/^\\{"verdict":"([a-z]+)".*:([0-9]+)\\/.*n=([0-9]+)$/pod :\\2 check \\3: \\1/'

                3. Create a rule and watch a check turn to deny: Growth's /v1/exports, 1 per minute. Every pod has it within a second.
                   curl -s -X PUT %7$s/v1/rules/export-route %8$s %2$s \\
                     -d '{"domain":"public-api","match":{"plan":"growth","route":"/v1/exports"},"algorithm":"token_bucket","rate_per_s":1,"period_s":60,"burst":1}'; echo
                   sleep 1; for i in 1 2; do curl -s -X POST %9$s %2$s -d '{"domain":"public-api","entries":[{"rule":"export-route","key":"acct_7Q2"}]}'; echo; done

                4. Raise the Free account's limit for a week (an override). Run 2 again: all pass.
                   curl -s -X POST %7$s/v1/overrides %8$s %2$s \\
                     -d '{"account_id":"acct_free_1","rule_id":"free-global","rate_per_s":100,"burst":200,"expires_at":"%10$s","reason":"launch week"}'; echo

                5. What support sees for the account: tokens left in each bucket, its override, the region's share.
                   curl -s %7$s/v1/keys/acct_free_1/usage %8$s; echo

                6. Change a rule: read its version (the ETag), then replace it with If-Match (a stale version answers 409).
                   curl -si %7$s/v1/rules/free-global %8$s | grep -i etag
                   curl -s -X PUT %7$s/v1/rules/free-global %8$s -H 'If-Match: %11$s' %2$s \\
                     -d '{"domain":"public-api","match":{"plan":"free"},"algorithm":"token_bucket","rate_per_s":2,"burst":5,"reason":"tighter Free"}'; echo

                7. Put a rule in shadow mode: still evaluated and counted (shadow_deny), never enforced.
                   curl -s -X POST '%7$s/v1/rules/labels-route:shadow' %8$s -H 'If-Match: %12$s'; echo

                8. Login attempts per IP over a sliding minute (a rule that fails closed): the 6th and 7th are denied.
                   for i in $(seq 7); do curl -s -X POST %1$s %2$s -d '{"domain":"auth","entries":[{"rule":"login-ip","key":"203.0.113.9"}]}' | %13$s; done

                Metrics: curl -s http://%4$s:%14$d/actuator/prometheus | grep '^tollgate_' | grep -v _bucket
                API document: curl -s %7$s/v3/api-docs %8$s
                Support console: %7$s/console/ (sign in with the dev token)
                """.formatted(check, json, across, host, pods, perPod, rules, auth, lastPod, expires, freeVersion, labelsVersion,
                verdict, checkPorts.get(0));
    }
}
