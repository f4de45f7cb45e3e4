package dev.tollgate.rules;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** A plain HTTP client for the service under test: what a support tool or a pod would send, nothing Spring in between. */
final class Api {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final String base;
    private final String token;

    Api(int port, String token) {
        this("http://127.0.0.1:" + port, token);
    }

    private Api(String base, String token) {
        this.base = base;
        this.token = token;
    }

    /** The same service, with another bearer token (null: none). */
    Api as(String bearer) {
        return new Api(base, bearer);
    }

    Request request(String method, String path) {
        return new Request(method, path);
    }

    Response get(String path) {
        return request("GET", path).send();
    }

    Response put(String path, String json) {
        return request("PUT", path).body(json).send();
    }

    Response post(String path, String json) {
        return request("POST", path).body(json).send();
    }

    Response delete(String path) {
        return request("DELETE", path).send();
    }

    final class Request {
        private final HttpRequest.Builder builder;
        private final String method;
        private String body;

        Request(String method, String path) {
            this.method = method;
            this.builder = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30));
        }

        Request header(String name, String value) {
            builder.header(name, value);
            return this;
        }

        Request ifMatch(long version) {
            return header("If-Match", "\"" + version + "\"");
        }

        Request body(String json) {
            return body(json, "application/json");
        }

        Request body(String content, String contentType) {
            this.body = content;
            builder.header("Content-Type", contentType);
            return this;
        }

        Response send() {
            return sendAsync().join();
        }

        CompletableFuture<Response> sendAsync() {
            if (token != null) {
                builder.header("Authorization", "Bearer " + token);
            }
            builder.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
            return CLIENT.sendAsync(builder.build(), HttpResponse.BodyHandlers.ofString()).thenApply(Response::new);
        }
    }

    static final class Response {
        final int status;
        final String body;
        final HttpResponse<String> raw;

        Response(HttpResponse<String> raw) {
            this.raw = raw;
            this.status = raw.statusCode();
            this.body = raw.body();
        }

        JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (RuntimeException e) {
                throw new IllegalStateException("not JSON (status " + status + "): " + body, e);
            }
        }

        Optional<String> header(String name) {
            return raw.headers().firstValue(name);
        }

        String etag() {
            return header("ETag").orElseThrow(() -> new AssertionError("no ETag; status " + status + ", body " + body));
        }

        @Override
        public String toString() {
            return status + " " + body;
        }
    }

    static String json(String singleQuoted) {
        return singleQuoted.replace('\'', '"');
    }
}
