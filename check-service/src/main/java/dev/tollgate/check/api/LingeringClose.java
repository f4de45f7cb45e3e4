package dev.tollgate.check.api;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import org.springframework.stereotype.Component;
import reactor.netty.http.server.HttpServer;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A connection the service closes while its client may still be sending (a body too large to read, a
 * request Netty's decoder refused) is half-closed, not closed: the answer and a FIN go out, and what still
 * arrives is read and dropped until the client closes too, for at most {@link #LINGER} or
 * {@link #MAX_DROPPED} bytes (RFC 9112, section 9.6; Apache's and nginx's lingering close).
 *
 * <p>Why: closed outright with unread bytes in its receive buffer, the socket answers them with a reset.
 * A client still writing its body (Java's HttpClient writes and reads at once) then fails its write, and
 * reports the connection lost without the 413 that was already on its way: the fuzzer saw "header parser
 * received no bytes" for a body of 180 KB under CI load.
 */
@Component
class LingeringClose implements NettyServerCustomizer {

    static final Duration LINGER = Duration.ofSeconds(2);
    static final long MAX_DROPPED = 1 << 20;
    private static final String HANDLER = "tollgate.lingeringClose";

    @Override
    public HttpServer apply(HttpServer server) {
        return server.doOnChannelInit((observer, channel, address) -> {
            // a TCP connection, not an HTTP/2 stream on one
            if (channel instanceof DuplexChannel) {
                channel.pipeline().addFirst(HANDLER, new Handler());
            }
        });
    }

    /** First in the pipeline: every close passes it last, and it sees the bytes before the HTTP codec does. */
    private static final class Handler extends ChannelDuplexHandler {

        private boolean lingering;
        private long dropped;

        @Override
        public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
            DuplexChannel channel = (DuplexChannel) ctx.channel();
            if (lingering) {
                channel.closeFuture().addListener(closed -> promise.trySuccess());
                return;
            }
            if (!channel.isActive() || channel.isInputShutdown() || channel.isOutputShutdown()) {
                ctx.close(promise);
                return;
            }
            lingering = true;
            Future<?> deadline = ctx.executor().schedule((Runnable) ctx::close, LINGER.toMillis(), TimeUnit.MILLISECONDS);
            channel.closeFuture().addListener(closed -> {
                deadline.cancel(false);
                promise.trySuccess();
            });
            // after everything written before it: the answer goes out whole, then the FIN
            ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener((ChannelFutureListener) written -> {
                if (!written.isSuccess()) {
                    ctx.close();
                    return;
                }
                channel.shutdownOutput().addListener((ChannelFutureListener) shut -> {
                    if (!shut.isSuccess()) {
                        ctx.close();
                    }
                });
            });
            // read on whether or not the HTTP handlers wanted more: the client's FIN ends it
            channel.config().setAutoRead(true);
            ctx.read();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!lingering) {
                ctx.fireChannelRead(msg);
                return;
            }
            if (msg instanceof ByteBuf bytes) {
                dropped += bytes.readableBytes();
            }
            ReferenceCountUtil.release(msg);
            if (dropped > MAX_DROPPED) {
                ctx.close();
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            if (!lingering) {
                ctx.fireChannelReadComplete();
            }
        }
    }
}
