package dev.tollgate.check.rules;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.http.client.ClientHttpRequestFactoryBuilder;
import org.springframework.boot.http.client.HttpClientSettings;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackInputStream;
import java.net.URI;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.zip.GZIPInputStream;

/**
 * The transport of the watch feed ({@code GET /v1/watch?since=N&region=X} on rules-service): one long poll, its
 * status and its body, gunzipped and bounded; what the body means is {@link RulesWatcher}'s business.
 *
 * <p>On Spring Boot's {@link RestClient.Builder}, so that a poll is an {@code http.client.requests}
 * observation like any other client call (metrics, and a span when tracing is on) and TLS comes from an
 * SSL bundle; over the JDK's HttpClient, whose read timeout bounds the whole answer, which suits a long
 * poll that rules-service holds open for up to its watch timeout.
 */
public final class RulesFeed {

    private static final Logger log = LoggerFactory.getLogger(RulesFeed.class);

    /** Snapshots today are tens of MB at 240,000 budgeted keys; this leaves room to grow, not to fill a heap. */
    public static final long DEFAULT_MAX_BYTES = 128L << 20;

    /**
     * A pod reads a snapshot of at most this fraction of its heap (1/12), whatever it is configured to read.
     * While it swaps one in it holds about six times the snapshot's JSON, measured at 35 MB of JSON (240,000 budget
     * rows): 2.5 for the snapshot in force and its rule book, 1 for the body, 1.6 for the parsed answer, 0.85 for the
     * new rule book. A twelfth keeps that within half the heap, beside the pod's caches: the chart's 1 GiB pod
     * (a 717 MiB heap) reads up to 60 MiB. At the configured 128 MiB it would not fit: run with ExitOnOutOfMemoryError,
     * every pod would die on the same revision, and again after each restart.
     */
    static final int HEAP_SHARE = 12;

    private final RestClient http;
    private final WatchToken token;
    private final long maxBytes;

    /**
     * @param serviceUrl     rules-service's base URL, e.g. {@code http://rules-service:8081}
     * @param token          the bearer token (scope {@code ratelimit:watch}), asked for again for every poll
     * @param connectTimeout how long a connection may take to open
     * @param pollTimeout    how long one poll may take, answer included; longer than rules-service's watch timeout
     * @param sslBundle      the trust (and client key) for an {@code https} service URL; null: the JVM's defaults
     * @param maxBytes       the largest body read, as sent and once gunzipped: a runaway feed or a gzip bomb
     *                       must not take the pod's heap; no more than {@link #HEAP_SHARE a share of the
     *                       heap} is read whatever this says
     */
    public record Settings(URI serviceUrl, WatchToken token, Duration connectTimeout, Duration pollTimeout, SslBundle sslBundle,
                           long maxBytes) {

        public Settings {
            if (maxBytes < 1) {
                throw new IllegalArgumentException("the largest snapshot must be positive, was " + maxBytes);
            }
        }
    }

    /**
     * What one poll brought.
     *
     * @param status the HTTP status: 200 with a body, 304 when nothing changed within the watch timeout
     * @param body   the body, gunzipped when it was sent compressed; empty without one
     */
    public record Answer(int status, byte[] body) {
    }

    /** @param builder Spring Boot's builder (its customizers: observations), configured here for the feed */
    public static RulesFeed of(RestClient.Builder builder, Settings settings) {
        HttpClientSettings client = HttpClientSettings.defaults()
                .withTimeouts(settings.connectTimeout(), settings.pollTimeout())
                .withSslBundle(settings.sslBundle());
        RestClient http = builder
                .baseUrl(settings.serviceUrl().toString())
                // the feed gunzips itself, so that the body is bounded as sent as well as once inflated
                .requestFactory(ClientHttpRequestFactoryBuilder.jdk().withCustomizer(factory -> factory.enableCompression(false)).build(client))
                .build();
        long heap = Runtime.getRuntime().maxMemory();
        long largest = largestSnapshot(heap, settings.maxBytes());
        if (largest < settings.maxBytes()) {
            log.info("reading rules snapshots of up to {} bytes, a twelfth of the {}-byte heap (the configured largest is {} bytes)",
                    largest, heap, settings.maxBytes());
        }
        return new RulesFeed(http, settings.token(), largest);
    }

    /**
     * The largest snapshot a pod of {@code maxHeap} bytes reads ({@link Runtime#maxMemory()}, {@link Long#MAX_VALUE} for a
     * heap without a limit): {@code configured}, or its {@link #HEAP_SHARE share} of the heap when that is smaller.
     */
    static long largestSnapshot(long maxHeap, long configured) {
        return maxHeap == Long.MAX_VALUE ? configured : Math.max(1, Math.min(configured, maxHeap / HEAP_SHARE));
    }

    RulesFeed(RestClient http, WatchToken token, long maxBytes) {
        this.http = http;
        this.token = token;
        this.maxBytes = maxBytes;
    }

    /** Where the bearer token comes from, for a log line (never the token itself). */
    WatchToken token() {
        return token;
    }

    /**
     * One long poll from the revision the pod holds (none: the whole snapshot at once), for the changes
     * that concern {@code region}: its own budget rows only.
     *
     * @throws SnapshotTooLarge when the body is over the size a pod reads
     * @throws IOException      when rules-service cannot be reached or the answer cannot be read
     */
    public Answer poll(OptionalLong since, String region) throws IOException {
        String bearer = token.current();
        RestClient.RequestHeadersSpec<?> request = since.isPresent()
                // a template, not a built URI: the observation's uri tag stays one series whatever the revision
                ? http.get().uri("/v1/watch?region={region}&since={since}", region, since.getAsLong())
                : http.get().uri("/v1/watch?region={region}", region);
        request.accept(MediaType.APPLICATION_JSON).header(HttpHeaders.ACCEPT_ENCODING, "gzip");
        if (bearer != null) {
            request.header(HttpHeaders.AUTHORIZATION, "Bearer " + bearer);
        }
        try {
            return request.exchange((sent, response) -> new Answer(response.getStatusCode().value(), decoded(response, maxBytes)));
        } catch (ResourceAccessException e) {
            // the client wraps every I/O failure, ours included: the size refusal goes back as itself
            if (e.getCause() instanceof SnapshotTooLarge tooLarge) {
                throw tooLarge;
            }
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getMessage(), e);
        }
    }

    /**
     * The body as sent, gunzipped when rules-service compressed it (it does above a few KB); both bounded before they
     * are held: by the length the answer declares, then counted as it arrives and as it inflates, so that a refused
     * answer costs the pod at most {@code max} bytes of heap, never its own size.
     */
    private static byte[] decoded(ClientHttpResponse response, long max) throws IOException {
        InputStream body = response.getBody();
        try {
            long declared = response.getHeaders().getContentLength();
            if (declared > max) {
                throw new SnapshotTooLarge("it declares " + declared + " bytes, larger than the " + max + " bytes a pod reads");
            }
            InputStream sent = new Counted(body, max);
            String encoding = response.getHeaders().getFirst(HttpHeaders.CONTENT_ENCODING);
            if (encoding == null || !encoding.trim().equalsIgnoreCase("gzip")) {
                return readAtMost(sent, max, "as sent");
            }
            PushbackInputStream peeked = new PushbackInputStream(sent);
            int first = peeked.read();
            if (first < 0) {
                return new byte[0];
            }
            peeked.unread(first);
            try (InputStream inflated = new GZIPInputStream(peeked, 64 << 10)) {
                return readAtMost(inflated, max, "gunzipped");
            }
        } catch (SnapshotTooLarge e) {
            // closed unread: the client would otherwise read the rest of a refused answer to keep its connection
            try {
                body.close();
            } catch (IOException ignored) {
                // the refusal is what the pod reports
            }
            throw e;
        }
    }

    private static byte[] readAtMost(InputStream in, long max, String what) throws IOException {
        byte[] bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, max + 1));
        if (bytes.length > max) {
            throw new SnapshotTooLarge("it is larger than " + max + " bytes " + what);
        }
        return bytes;
    }

    /**
     * The body as it arrives, refused past {@code max} bytes: what bounds a gzipped answer as sent, since it is inflated
     * as it is read. Its readers do not close it: the response does, once the rest of a read answer is drained.
     */
    private static final class Counted extends FilterInputStream {

        private final long max;
        private long count;

        Counted(InputStream in, long max) {
            super(in);
            this.max = max;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                counted(1);
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) {
                counted(n);
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long skipped = super.skip(n);
            counted(skipped);
            return skipped;
        }

        @Override
        public void close() {
        }

        private void counted(long n) throws SnapshotTooLarge {
            count += n;
            if (count > max) {
                throw new SnapshotTooLarge("it is larger than " + max + " bytes as sent");
            }
        }
    }

    /** A snapshot over the size a pod reads: refused, counted, and the rules in force stay. */
    static final class SnapshotTooLarge extends IOException {

        SnapshotTooLarge(String message) {
            super(message);
        }
    }
}
