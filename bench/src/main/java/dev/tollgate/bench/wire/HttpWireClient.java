package dev.tollgate.bench.wire;

import dev.tollgate.bench.BenchOptions.Protocol;
import dev.tollgate.bench.load.Answer;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import reactor.core.publisher.Mono;
import reactor.netty.http.HttpProtocol;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;
import reactor.netty.resources.LoopResources;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * {@code POST /v1/ratelimit:check} over reactor-netty's client on a pool of a fixed number of connections:
 * HTTP/1.1 keep-alive (one request per connection at a time; a request with no free connection waits in
 * the pool's queue, and that wait counts in its latency) or h2c with prior knowledge.
 */
public final class HttpWireClient implements WireClient {

    static final String PATH = "/v1/ratelimit:check";

    private static final byte[] ALLOW = "\"verdict\":\"allow\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DENY = "\"verdict\":\"deny\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] FALLBACK = "\"fallback\":".getBytes(StandardCharsets.US_ASCII);

    private final ConnectionProvider pool;
    private final LoopResources loops;
    private final HttpClient client;

    /** A check's answer as it came over the wire: its status and body. */
    public record Reply(int status, byte[] body) {
    }

    HttpWireClient(Protocol protocol, String host, int port, int connections) {
        this(protocol, host, port, connections, Duration.ofSeconds(30));
    }

    /**
     * @param responseTimeout how long a request waits for its answer once sent; past it the answer fails with
     *                        reactor-netty's timeout (a pod or store that never answers)
     */
    public HttpWireClient(Protocol protocol, String host, int port, int connections, Duration responseTimeout) {
        this.pool = ConnectionProvider.builder("tollgate-wire-" + protocol.option)
                .maxConnections(connections)
                // open loop: queue whatever comes, never refuse; the queueing shows in the latency
                .pendingAcquireMaxCount(-1)
                .pendingAcquireTimeout(Duration.ofSeconds(60))
                .build();
        // its own event loop, one thread: the load generator must not take more of the 2 cores than it needs
        this.loops = LoopResources.create("tollgate-wire-" + protocol.option, 1, true);
        this.client = HttpClient.create(pool)
                .runOn(loops)
                .host(host)
                .port(port)
                .protocol(protocol == Protocol.H2C ? HttpProtocol.H2C : HttpProtocol.HTTP11)
                .headers(headers -> headers.set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON))
                .responseTimeout(responseTimeout);
    }

    @Override
    public CompletableFuture<Answer> send(WireCheck check) {
        return exchange(check.json()).thenApply(reply -> classify(reply.status(), reply.body()));
    }

    /**
     * POSTs {@code json} (any bytes: a malformed body too) to the check's path; completes with whatever status and body
     * came back, or exceptionally when none did (refused connection, broken connection, response timeout).
     */
    public CompletableFuture<Reply> exchange(byte[] json) {
        return client.post()
                .uri(PATH)
                .send(Mono.fromSupplier(() -> Unpooled.wrappedBuffer(json)))
                .responseSingle((response, body) -> body.asByteArray()
                        .defaultIfEmpty(new byte[0])
                        .map(bytes -> new Reply(response.status().code(), bytes)))
                .toFuture();
    }

    /** A check's answer as the bench counts it: the verdict, and whether the pod answered from its fallback. */
    public static Answer classify(int status, byte[] body) {
        if (status != 200) {
            return Answer.FAILED;
        }
        boolean fallback = indexOf(body, FALLBACK) >= 0;
        if (indexOf(body, ALLOW) >= 0) {
            return fallback ? Answer.FALLBACK_ALLOWED : Answer.ALLOWED;
        }
        if (indexOf(body, DENY) >= 0) {
            return fallback ? Answer.FALLBACK_DENIED : Answer.DENIED;
        }
        return Answer.FAILED;
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    @Override
    public void close() {
        pool.disposeLater().block(Duration.ofSeconds(5));
        // no quiet period: with the pool gone nothing is left to run on these loops, and Netty's default of 2 s was
        // paid by every step of scenario 8 (about 50 s of the smoke test's 3 minutes)
        loops.disposeLater(Duration.ZERO, Duration.ofSeconds(5)).block(Duration.ofSeconds(5));
    }
}
