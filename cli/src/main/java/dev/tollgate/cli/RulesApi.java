package dev.tollgate.cli;

import dev.tollgate.common.ascode.DomainFile.Format;
import dev.tollgate.common.wire.PlainTree;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/**
 * rules-service's three rules-as-code endpoints over the JDK's HTTP client: {@code POST /v1/config:diff},
 * {@code POST /v1/config:apply} and {@code GET /v1/config:export}. Every call is bounded (a connect timeout and a
 * timeout for the whole answer), follows no redirect (which would carry a rules-as-code file somewhere else), and an
 * answer of any status is a value ({@link Answer}); only no answer at all is a {@link Failure}.
 */
final class RulesApi {

    /** An HTTP answer; {@code etag} without its quotes, null when there is none. */
    record Answer(int status, String etag, byte[] body) {

        boolean ok() {
            return status >= 200 && status < 300;
        }

        /** The body as a JSON object, or null when it is not one (a proxy's HTML page, say). */
        @SuppressWarnings("unchecked")
        Map<String, Object> object() {
            PlainTree.Parsed parsed = PlainTree.json(body);
            return parsed.ok() && parsed.tree() instanceof Map<?, ?> map ? (Map<String, Object>) map : null;
        }

        /**
         * What a refusal means for the run: the file or the apply refused ({@link ExitCodes#REFUSED}: 400 unreadable
         * file, 409 changed since, 413 too large, 422 invalid, 428), or no usable answer ({@link ExitCodes#UNAVAILABLE}:
         * 401 and 403, the token; 404, a URL that is not rules-service's; 5xx; anything else).
         */
        int exitCode() {
            return switch (status) {
                case 400, 409, 412, 413, 422, 428 -> ExitCodes.REFUSED;
                default -> ok() ? ExitCodes.OK : ExitCodes.UNAVAILABLE;
            };
        }
    }

    private final String base;
    private final String authorization;
    private final Duration timeout;
    private final HttpClient http;

    /**
     * @param base  rules-service's URL, without a trailing slash
     * @param token a bearer token, or null to send none
     */
    RulesApi(String base, String token, Duration connectTimeout, Duration timeout) {
        this.base = base;
        this.authorization = token == null ? null : "Bearer " + token;
        this.timeout = timeout;
        this.http = HttpClient.newBuilder()
                .connectTimeout(connectTimeout)
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    Answer diff(DomainFiles.Local file) {
        return send(post("/v1/config:diff", file));
    }

    /** @param ifMatch the domain's digest the apply must find, or null to apply over whatever is stored */
    Answer apply(DomainFiles.Local file, boolean dryRun, String reason, String ifMatch) {
        StringBuilder query = new StringBuilder(dryRun ? "?dry_run=true" : "?dry_run=false");
        if (reason != null) {
            query.append("&reason=").append(encoded(reason));
        }
        HttpRequest.Builder request = post("/v1/config:apply" + query, file);
        if (ifMatch != null) {
            request.header("If-Match", "\"" + ifMatch + "\"");
        }
        return send(request);
    }

    Answer export(String domain, Format format) {
        return send(request("/v1/config:export?domain=" + encoded(domain))
                .header("Accept", format == Format.JSON ? "application/json" : "application/yaml")
                .GET());
    }

    private HttpRequest.Builder post(String path, DomainFiles.Local file) {
        return request(path)
                .header("Content-Type", file.mediaType())
                .header("Accept", "application/json, application/problem+json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(file.body()));
    }

    private HttpRequest.Builder request(String path) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).timeout(timeout);
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return request;
    }

    private Answer send(HttpRequest.Builder request) {
        HttpRequest built = request.build();
        try {
            HttpResponse<byte[]> response = http.send(built, HttpResponse.BodyHandlers.ofByteArray());
            String etag = response.headers().firstValue("ETag").map(RulesApi::unquoted).orElse(null);
            return new Answer(response.statusCode(), etag, response.body());
        } catch (HttpTimeoutException e) {
            throw new Failure(ExitCodes.UNAVAILABLE, "rules-service at " + base + " did not answer in time (" + e.getMessage()
                    + "); raise --connect-timeout or --timeout if it is only slow");
        } catch (ConnectException e) {
            throw new Failure(ExitCodes.UNAVAILABLE, "cannot connect to rules-service at " + base + ": " + describe(e));
        } catch (IOException e) {
            throw new Failure(ExitCodes.UNAVAILABLE, "no answer from rules-service at " + base + ": " + describe(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Failure(ExitCodes.UNAVAILABLE, "interrupted while waiting for rules-service at " + base);
        }
    }

    /** The JDK's ConnectException often has no message of its own, only a cause that says "Connection refused". */
    private static String describe(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (cause.getMessage() != null && !cause.getMessage().isBlank()) {
                return cause.getMessage();
            }
        }
        return error.getClass().getSimpleName();
    }

    private static String encoded(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static String unquoted(String tag) {
        String value = tag.startsWith("W/") ? tag.substring(2) : tag;
        return value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"") ? value.substring(1, value.length() - 1) : value;
    }
}
