package dev.tollgate.check.api;

import dev.tollgate.check.config.CheckProperties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Hooks;
import reactor.netty.http.server.HttpServer;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The HTTP port's connection limits ({@code tollgate.http.*}): a keep-alive connection idle past its
 * timeout is closed, and a body that takes too long to arrive whole is answered 408
 * (with problem details, see {@link UnparsableRequests}) and its connection closed. Without them a client
 * that declared a body it never sends, or a gateway that crashed, held a connection and its buffers for
 * ever.
 */
@Component
class ConnectionTimeouts implements NettyServerCustomizer {

    private static final Logger log = LoggerFactory.getLogger(ConnectionTimeouts.class);
    private static final String REQUEST_TIMED_OUT = "reactor.netty.http.server.RequestTimeoutException";
    private static final AtomicBoolean DROPPED_TIMEOUTS_QUIET = new AtomicBoolean();

    private final CheckProperties.Http limits;

    ConnectionTimeouts(CheckProperties properties) {
        this.limits = properties.http();
        quietDroppedTimeouts();
    }

    /**
     * Reactor Netty 1.3.6 hands a timed-out body's error to its reader a second time when the answer, given in
     * that first error's handling, completes (FluxReceive's fast path keeps the reader): Reactor then logs it
     * at ERROR as dropped, with no harm done, on every 408, which any client could raise at will. Those are
     * logged at DEBUG; every other dropped error is logged as Reactor's default would. Once a JVM: the hook is
     * global, and each call of {@link Hooks#onErrorDropped} adds to it.
     */
    private static void quietDroppedTimeouts() {
        if (DROPPED_TIMEOUTS_QUIET.compareAndSet(false, true)) {
            Hooks.onErrorDropped(error -> {
                if (REQUEST_TIMED_OUT.equals(error.getClass().getName())) {
                    log.debug("a timed-out request's error, dropped after its 408 went out", error);
                } else {
                    log.error("Operator called default onErrorDropped", error);
                }
            });
        }
    }

    @Override
    public HttpServer apply(HttpServer server) {
        // no read timeout between reads: Netty's fires again after the answer went out, an error nobody can take;
        // the request timeout bounds a stalled body all the same, and is only armed while a body is awaited
        return server.idleTimeout(limits.idleTimeout()).requestTimeout(limits.requestTimeout());
    }
}
