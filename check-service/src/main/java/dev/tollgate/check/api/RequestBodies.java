package dev.tollgate.check.api;

import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reads and drops a request body that nothing read before an error answer (404, 405, 415, ...).
 *
 * <p>Why: the fuzzer saw a keep-alive connection stop being read after such an answer, about once in
 * 600 of them: the next request sat in the server's socket buffer (ss: Recv-Q 216) with both event
 * loops idle, until the client gave up. This is Reactor Netty 1.3.6's HttpTrafficHandler, which
 * buffers a request that arrives before the previous one's operations terminated and, once it drained
 * that queue with only the old request's trailing content left, never asked the channel to read again
 * (reactor-netty PR 4347, issue 4361). A body read to its end before the answer leaves no trailing
 * content behind. A body larger than {@link #MAX_DRAIN}, slower than {@link #MAX_WAIT} or failing is
 * not read further: the answer then closes the connection instead.
 *
 * <p>Public for the forward-auth check, whose gateways may send the original request's body along and which reads none.
 */
public final class RequestBodies {

    /** The check API's own body limit: anything larger was never a check. */
    static final long MAX_DRAIN = 64 * 1024;
    static final Duration MAX_WAIT = Duration.ofMillis(500);

    private RequestBodies() {
    }

    public static Mono<Void> drain(ServerWebExchange exchange) {
        AtomicLong seen = new AtomicLong();
        return exchange.getRequest().getBody()
                .doOnNext(buffer -> {
                    seen.addAndGet(buffer.readableByteCount());
                    DataBufferUtils.release(buffer);
                })
                .takeUntil(released -> seen.get() > MAX_DRAIN)
                .then()
                .timeout(MAX_WAIT)
                .then(Mono.fromRunnable(() -> {
                    if (seen.get() > MAX_DRAIN) {
                        closeAfterAnswer(exchange);
                    }
                }))
                // the body was read already (a decoder subscribed): nothing is left behind
                .onErrorResume(IllegalStateException.class, alreadyRead -> Mono.empty())
                .onErrorResume(failed -> {
                    closeAfterAnswer(exchange);
                    return Mono.empty();
                })
                .then();
    }

    /** The answer asks for the connection to be closed, so nothing left unread can stall the next request. */
    static void closeAfterAnswer(ServerWebExchange exchange) {
        if (!exchange.getResponse().isCommitted()) {
            exchange.getResponse().getHeaders().set(HttpHeaders.CONNECTION, "close");
        }
    }
}
