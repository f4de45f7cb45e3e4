package dev.tollgate.devstack.demo;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** rules-service's admin API, as far as the dev stack uses it: JSON in, status and body out. */
public final class AdminClient {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final String baseUrl;
    private final String token;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    public AdminClient(String baseUrl, String token) {
        this.baseUrl = baseUrl;
        this.token = token;
    }

    /** One answer: the status, the ETag (a rule's version) when there is one, and the body. */
    public record Response(int status, String etag, String body) {

        public boolean ok() {
            return status >= 200 && status < 300;
        }
    }

    public Response get(String path) {
        return send(request(path).GET());
    }

    public Response put(String path, String json, String ifMatch) {
        HttpRequest.Builder request = request(path).header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(json));
        if (ifMatch != null) {
            request.header("If-Match", ifMatch);
        }
        return send(request);
    }

    public Response post(String path, String json, String ifMatch) {
        HttpRequest.Builder request = request(path).header("Content-Type", "application/json")
                .POST(json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json));
        if (ifMatch != null) {
            request.header("If-Match", ifMatch);
        }
        return send(request);
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(baseUrl + path))
                .timeout(TIMEOUT)
                // JSON first; anything for the few endpoints that answer otherwise (/actuator/prometheus)
                .header("Accept", "application/json, application/problem+json;q=0.9, */*;q=0.1")
                .header("Authorization", "Bearer " + token);
    }

    private Response send(HttpRequest.Builder request) {
        try {
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return new Response(response.statusCode(), response.headers().firstValue("ETag").orElse(null), response.body());
        } catch (IOException e) {
            throw new IllegalStateException("rules-service at " + baseUrl + " did not answer: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while calling rules-service", e);
        }
    }
}
