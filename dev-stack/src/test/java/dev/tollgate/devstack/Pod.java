package dev.tollgate.devstack;

import dev.tollgate.devstack.app.RunningApp;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A check-service instance as a gateway sees it: checks over HTTP, and its metrics. */
final class Pod {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final String name;
    private final String baseUrl;

    Pod(String name, String baseUrl) {
        this.name = name;
        this.baseUrl = baseUrl;
    }

    static Pod of(String name, RunningApp app) {
        return new Pod(name, app.baseUrl());
    }

    String name() {
        return name;
    }

    /** One check of one entry; the whole answer. */
    JsonNode check(String domain, String rule, String key) {
        String body = "{\"domain\":\"" + domain + "\",\"entries\":[{\"rule\":\"" + rule + "\",\"key\":\"" + key + "\",\"cost\":1}]}";
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(baseUrl + "/v1/ratelimit:check"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)));
        if (response.statusCode() != 200) {
            throw new AssertionError(name + " answered " + response.statusCode() + " to a check: " + response.body());
        }
        return JSON.readTree(response.body());
    }

    String verdict(String domain, String rule, String key) {
        return check(domain, rule, key).get("verdict").asString();
    }

    /** Whether the pod enforces {@code rule} (an unknown rule is allowed and flagged). */
    boolean knows(String domain, String rule) {
        return !check(domain, rule, "knows-probe").get("entries").get(0).has("unknown_rule");
    }

    String get(String path) {
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(baseUrl + path)).GET());
        if (response.statusCode() != 200) {
            throw new AssertionError(name + " answered " + response.statusCode() + " to GET " + path + ": " + response.body());
        }
        return response.body();
    }

    /** A counter or gauge from /actuator/prometheus, summed over its series; 0 when absent. */
    double metric(String prometheusName) {
        Matcher matcher = Pattern.compile("(?m)^" + Pattern.quote(prometheusName) + "(\\{[^}]*})? ([0-9.eE+-]+)$").matcher(get("/actuator/prometheus"));
        double sum = 0;
        while (matcher.find()) {
            sum += Double.parseDouble(matcher.group(2));
        }
        return sum;
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) {
        try {
            return HTTP.send(request.timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new AssertionError("request failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** A port nothing listens on now (the usual race with whoever binds it next, acceptable in a test). */
    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new AssertionError("no free port", e);
        }
    }

    @Override
    public String toString() {
        return name + " " + baseUrl;
    }
}
