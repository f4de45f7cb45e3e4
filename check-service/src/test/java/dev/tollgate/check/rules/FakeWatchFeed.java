package dev.tollgate.check.rules;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.GZIPOutputStream;

/**
 * A protocol peer for the watch feed (rules-service's {@code GET /v1/watch}): answers what was published
 * (a bare snapshot as an older rules-service sends, or a delta or snapshot of the delta feed) at once when
 * its revision differs from {@code since}, else 304 after a short wait. The real rules-service is exercised
 * end to end in dev-stack; here the test controls exactly which snapshot a pod is offered.
 */
public final class FakeWatchFeed implements AutoCloseable {

    private final HttpServer server;
    private final AtomicReference<String> snapshot = new AtomicReference<>();
    private final AtomicInteger revision = new AtomicInteger(-1);
    private volatile String lastAuthorization;
    private volatile String lastQuery;
    private volatile String requiredToken;
    private volatile boolean gzipped;
    private volatile boolean plain;
    private volatile boolean chunked;

    public FakeWatchFeed() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/v1/watch", this::watch);
        server.start();
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public void publish(int newRevision, String snapshotJson) {
        snapshot.set(snapshotJson);
        revision.set(newRevision);
    }

    String lastAuthorization() {
        return lastAuthorization;
    }

    /** The query string of the last watch call, e.g. {@code region=us-east&since=3}. */
    String lastQuery() {
        return lastQuery;
    }

    /** Whether a snapshot went out gzipped (the pod asked for it). */
    boolean gzipped() {
        return gzipped;
    }

    /** From now on sends snapshots uncompressed, whatever the pod accepts. */
    void sendPlain() {
        plain = true;
    }

    /** From now on sends bodies chunked, without a Content-Length, as a proxy that re-chunks them may. */
    void sendChunked() {
        chunked = true;
    }

    /** From now on answers 401, as rules-service does for an expired or wrong token, unless shown this one. */
    void requireToken(String token) {
        requiredToken = token;
    }

    private void watch(HttpExchange exchange) throws IOException {
        lastAuthorization = exchange.getRequestHeaders().getFirst("Authorization");
        if (requiredToken != null && !("Bearer " + requiredToken).equals(lastAuthorization)) {
            exchange.sendResponseHeaders(401, -1);
            exchange.close();
            return;
        }
        lastQuery = exchange.getRequestURI().getQuery();
        long since = -1;
        for (String parameter : lastQuery == null ? new String[0] : lastQuery.split("&")) {
            if (parameter.startsWith("since=")) {
                since = Long.parseLong(parameter.substring(6));
            }
        }
        long deadline = System.currentTimeMillis() + 500;
        while (revision.get() == since || revision.get() < 0) {
            if (System.currentTimeMillis() > deadline) {
                exchange.sendResponseHeaders(304, -1);
                exchange.close();
                return;
            }
            sleep();
        }
        byte[] body = snapshot.get().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        String accepted = exchange.getRequestHeaders().getFirst("Accept-Encoding");
        if (!plain && accepted != null && accepted.contains("gzip")) {
            // as rules-service does for a large snapshot
            body = gzip(body);
            exchange.getResponseHeaders().add("Content-Encoding", "gzip");
            gzipped = true;
        }
        exchange.sendResponseHeaders(200, chunked ? 0 : body.length);
        exchange.getResponseBody().write(body);
        exchange.close();
    }

    private static byte[] gzip(byte[] plain) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream zip = new GZIPOutputStream(out)) {
            zip.write(plain);
        }
        return out.toByteArray();
    }

    private static void sleep() {
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
