package dev.tollgate.check.api;

import dev.tollgate.check.config.CheckProperties;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import org.springframework.stereotype.Component;
import reactor.netty.NettyPipeline;
import reactor.netty.channel.ChannelOperations;
import reactor.netty.http.HttpConnectionLiveness;
import reactor.netty.http.IdleTimeoutHandler;
import reactor.netty.http.server.HttpServer;

import java.time.Duration;

/**
 * Asks a keep-alive connection for its next request once its last one is done, where Reactor Netty 1.3.6 forgets
 * to (reactor-netty issue 4361, PR 4347).
 *
 * <p>Why: the server reads on demand only (auto-read off). A request read while the previous one is still being
 * answered is queued with its trailing content; when the previous one ends, HttpTrafficHandler dispatches the
 * queued request. If that request is answered at once (WebFlux's answer to {@code OPTIONS}, a health check), it
 * ends before its trailing content was handed on, and the handler schedules a second drain of its queue; the
 * first drain then hands on that content, the second finds the queue empty, and neither asks the channel to read
 * again nor arms the idle timeout. The next request then sat unread in the socket's buffer, with the event loops
 * idle, until the client gave up: every time for a chunked check and an {@code OPTIONS} sent in one write (T9).
 *
 * <p>This handler, after HttpTrafficHandler, does what that handler's own "queue empty" branch does (read, and
 * arm the idle timeout), once the drain that followed an end of request has run and no request is being served.
 * Only the latest end counts: an earlier one's task may run while a request is still queued, which must not be
 * timed as idle. A read while one is pending already, or while a request's content is queued, changes nothing:
 * HttpTrafficHandler queues what arrives while a request is served. The end is Reactor Netty's own
 * HttpServerOperationsTerminatedEvent, package-private, so known by its name; HTTP/1.1 only, as is that event
 * (an HTTP/2 stream is read by its own codec). Remove once the upstream fix is released and in the build.
 */
@Component
class KeepAliveReads implements NettyServerCustomizer {

    private static final String HANDLER = "tollgate.keepAliveReads";
    private static final String REQUEST_ENDED = "reactor.netty.http.server.HttpServerOperationsTerminatedEvent";

    /** The same limit {@link ConnectionTimeouts} gives Reactor Netty, which removes the handler by it. */
    private final Duration idleTimeout;

    KeepAliveReads(CheckProperties properties) {
        this.idleTimeout = properties.http().idleTimeout();
    }

    @Override
    public HttpServer apply(HttpServer server) {
        return server.doOnChannelInit((observer, channel, address) -> {
            if (channel.pipeline().get(NettyPipeline.HttpTrafficHandler) != null) {
                channel.pipeline().addAfter(NettyPipeline.HttpTrafficHandler, HANDLER, new Handler(idleTimeout));
            }
        });
    }

    private static final class Handler extends ChannelInboundHandlerAdapter {

        private final Duration idleTimeout;
        /** Ends of requests seen on this connection; only its event loop touches it. */
        private long ended;

        Handler(Duration idleTimeout) {
            this.idleTimeout = idleTimeout;
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (REQUEST_ENDED.equals(evt.getClass().getName())) {
                long end = ++ended;
                // after the drain HttpTrafficHandler scheduled for this end, which ran before the event got here
                ctx.executor().execute(() -> resume(ctx.channel(), end));
            }
            ctx.fireUserEventTriggered(evt);
        }

        private void resume(Channel channel, long end) {
            // a later end, or a request being served, re-arms the read itself when it is done
            if (end != ended || !channel.isActive() || ChannelOperations.get(channel) != null) {
                return;
            }
            IdleTimeoutHandler.addIdleTimeoutHandler(channel.pipeline(), idleTimeout, HttpConnectionLiveness.CLOSE);
            if (!channel.config().isAutoRead()) {
                channel.read();
            }
        }
    }
}
