package dev.tollgate.rules;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * One request a fuzzer sends: what kind of case it is ({@code kind}, for the figures and a failure's
 * message), the method, path, content type (null: none), the raw body bytes, the bearer token (null:
 * none) and an {@code If-Match} header (null: none).
 */
record FuzzCall(String kind, String method, String path, String contentType, byte[] body, String token, String ifMatch) {

    static FuzzCall json(String kind, String method, String path, String body, String token) {
        return new FuzzCall(kind, method, path, "application/json", body.getBytes(StandardCharsets.UTF_8), token, null);
    }

    FuzzCall withIfMatch(String value) {
        return new FuzzCall(kind, method, path, contentType, body, token, value);
    }

    FuzzCall withToken(String value) {
        return new FuzzCall(kind, method, path, contentType, body, value, ifMatch);
    }

    HttpRequest toRequest(int port, Duration timeout) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(timeout)
                .header("Accept", "application/json, application/problem+json");
        if (token != null) {
            builder.header("Authorization", "Bearer " + token);
        }
        if (ifMatch != null) {
            builder.header("If-Match", ifMatch);
        }
        if (contentType != null) {
            builder.header("Content-Type", contentType);
        }
        HttpRequest.BodyPublisher publisher = body == null || body.length == 0
                ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body);
        return builder.method(method, publisher).build();
    }

    /** The case in a line, cut short: a failure must say what was sent without printing 100 KB. */
    String describe() {
        String text = body == null ? "" : new String(body, StandardCharsets.UTF_8);
        String shown = text.length() > 300 ? text.substring(0, 300) + "... (" + body.length + " bytes)" : text;
        return kind + ": " + method + " " + path + " [" + contentType + (ifMatch == null ? "" : ", If-Match " + ifMatch)
                + (token == null ? ", no token" : "") + "] " + shown;
    }

    static HttpClient client() {
        // HTTP/1.1 with keep-alive: the fuzzer measures the service, not connection set-up
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();
    }

    static HttpResponse<String> send(HttpClient client, HttpRequest request) throws Exception {
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
