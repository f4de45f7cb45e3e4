package dev.tollgate.testsupport.fuzz;

import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * One request a fuzzer sends: what kind of case it is ({@code kind}, for the figures and a failure's
 * message), the method, path, content type (null: none), the raw body bytes, the bearer token (null:
 * none) and an {@code If-Match} header (null: none).
 */
public record FuzzCall(String kind, String method, String path, String contentType, byte[] body, String token, String ifMatch) {

    /** A call without a token or a precondition. */
    public FuzzCall(String kind, String method, String path, String contentType, byte[] body) {
        this(kind, method, path, contentType, body, null, null);
    }

    /** A JSON body, sent as {@code application/json}. */
    public static FuzzCall json(String kind, String method, String path, String body) {
        return json(kind, method, path, body, null);
    }

    public static FuzzCall json(String kind, String method, String path, String body, String token) {
        return new FuzzCall(kind, method, path, "application/json", body.getBytes(StandardCharsets.UTF_8), token, null);
    }

    public FuzzCall withIfMatch(String value) {
        return new FuzzCall(kind, method, path, contentType, body, token, value);
    }

    public FuzzCall withToken(String value) {
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
    public String describe() {
        String text = body == null ? "" : new String(body, StandardCharsets.UTF_8);
        String shown = text.length() > 300 ? text.substring(0, 300) + "... (" + body.length + " bytes)" : text;
        return kind + ": " + method + " " + path + " [" + contentType + (ifMatch == null ? "" : ", If-Match " + ifMatch)
                + (token == null ? ", no token" : "") + "] " + shown;
    }
}
