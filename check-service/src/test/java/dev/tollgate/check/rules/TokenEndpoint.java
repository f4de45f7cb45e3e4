package dev.tollgate.check.rules;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An OAuth2 token endpoint on loopback for the client-credentials grant (RFC 6749 section 4.4), as an
 * identity provider answers it: a token ({@code token-1}, {@code token-2}, ...) with its lifetime for the
 * right client and secret (HTTP Basic), {@code 401 invalid_client} for a wrong one, and nothing at all while
 * it is {@link #stop() stopped}. The tokens are opaque here: what rules-service makes of real JWTs is the
 * dev stack's WatchCredentialsIT.
 */
final class TokenEndpoint implements AutoCloseable {

    private final String clientId;
    private volatile String secret;
    private final long lifetimeSeconds;
    private final AtomicInteger issued = new AtomicInteger();
    private final int port;
    private HttpServer server;
    private volatile String lastScope;

    TokenEndpoint(String clientId, String secret, long lifetimeSeconds) throws IOException {
        this.clientId = clientId;
        this.secret = secret;
        this.lifetimeSeconds = lifetimeSeconds;
        this.server = start(0);
        this.port = server.getAddress().getPort();
    }

    URI tokenUri() {
        return URI.create("http://127.0.0.1:" + port + "/oauth2/token");
    }

    int issued() {
        return issued.get();
    }

    String lastScope() {
        return lastScope;
    }

    /** The issuer's secret for the client changes (a rotation): the old one is refused from now on. */
    void rotateSecret(String newSecret) {
        secret = newSecret;
    }

    /** An outage: the port refuses connections. */
    void stop() {
        server.stop(0);
    }

    /** Back on the same port. */
    void restart() throws IOException {
        server = start(port);
    }

    private HttpServer start(int onPort) throws IOException {
        HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), onPort), 0);
        http.createContext("/oauth2/token", this::token);
        http.start();
        return http;
    }

    private void token(HttpExchange exchange) throws IOException {
        String form = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        String expected = "Basic " + Base64.getEncoder().encodeToString((clientId + ":" + secret).getBytes(StandardCharsets.UTF_8));
        if (!form.contains("grant_type=client_credentials")) {
            respond(exchange, 400, "{\"error\":\"unsupported_grant_type\"}");
            return;
        }
        if (!expected.equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
            respond(exchange, 401, "{\"error\":\"invalid_client\",\"error_description\":\"Client authentication failed\"}");
            return;
        }
        for (String pair : form.split("&")) {
            if (pair.startsWith("scope=")) {
                lastScope = URLDecoder.decode(pair.substring(6), StandardCharsets.UTF_8);
            }
        }
        respond(exchange, 200, "{\"access_token\":\"token-" + issued.incrementAndGet() + "\",\"token_type\":\"Bearer\",\"expires_in\":"
                + lifetimeSeconds + ",\"scope\":\"ratelimit:watch\"}");
    }

    private static void respond(HttpExchange exchange, int status, String json) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
