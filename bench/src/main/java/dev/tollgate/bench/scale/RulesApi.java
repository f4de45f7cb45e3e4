package dev.tollgate.bench.scale;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/** rules-service's rules API as an operator uses it: create a rule, then replace it under its version ({@code If-Match}). */
final class RulesApi {

    private final URI base;
    private final String token;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    /** Each rule's version (its ETag) as the last write answered it. */
    private final Map<String, String> versions = new HashMap<>();

    RulesApi(URI base, String token) {
        this.base = base;
        this.token = token;
    }

    /** Creates or replaces a token-bucket rule of the scenario's domain on a route of its own. */
    void put(String ruleId, int ratePerSecond) throws IOException, InterruptedException {
        String body = String.format("{\"domain\":\"scale\",\"match\":{\"route\":\"/v1/%s\"},\"algorithm\":\"token_bucket\","
                + "\"rate_per_s\":%d,\"burst\":%d,\"reason\":\"scale bench\"}", ruleId, ratePerSecond, ratePerSecond * 2);
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve("/v1/rules/" + ruleId))
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(body));
        String version = versions.get(ruleId);
        if (version != null) {
            request.header("If-Match", version);
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200 && response.statusCode() != 201) {
            throw new IOException("PUT /v1/rules/" + ruleId + " answered " + response.statusCode() + ": " + response.body());
        }
        versions.put(ruleId, response.headers().firstValue("ETag")
                .orElseThrow(() -> new IOException("PUT /v1/rules/" + ruleId + " answered no ETag")));
    }

    /** One budget row as the watch feed writes it (a pod's share of one key), in bytes: what a changed key costs a pod at least. */
    static int budgetRowBytes() {
        return ("{\"rule_id\":\"scale-shipments\",\"limit_key\":\"acct_123456\",\"region\":\"us-east\",\"share\":0.25,"
                + "\"updated_at\":\"2026-11-30T20:00:00.123456Z\"},").length();
    }
}
