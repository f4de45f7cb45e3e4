package dev.tollgate.check.api;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import org.springframework.stereotype.Component;
import reactor.netty.NettyPipeline;
import reactor.netty.http.server.HttpServer;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A connection the service closes while its client may still be sending (a body too large to read, headers
 * Netty's decoder cut off at its limit) is half-closed, not closed: the answer and a FIN go out, and what still
 * arrives is read and dropped until the client closes too, for at most {@link #LINGER} or
 * {@link #MAX_DROPPED} bytes (RFC 9112, section 9.6; Apache's and nginx's lingering close).
 *
 * <p>Why: closed outright with unread bytes in its receive buffer, the socket answers them with a reset.
 * A client still writing its body (Java's HttpClient writes and reads at once) then fails its write, and
 * reports the connection lost without the 413 that was already on its way: the fuzzer saw "header parser
 * received no bytes" for a body of 180 KB under CI load.
 *
 * <p>Only while bytes are known to be on their way: the HTTP decoder is inside a request it has not read to its
 * end (a body not read whole, a chunk that broke mid-body, a request line or headers cut off at their limit).
 * A connection whose requests were all read to their end (a malformed but complete request line, an idle
 * keep-alive connection) is closed at once: lingering on each cost a flood of malformed requests
 * 2 s of a file descriptor apiece. What the decoder cannot frame (a bad length, a bad header) counts as read to
 * its end. Without an HTTP/1.1 decoder to ask (an HTTP/2 connection), every close lingers, as before.
 */
@Component
class LingeringClose implements NettyServerCustomizer {

    static final Duration LINGER = Duration.ofSeconds(2);
    static final long MAX_DROPPED = 1 << 20;
    private static final String HANDLER = "tollgate.lingeringClose";
    private static final String DECODED = "tollgate.lingeringClose.decoded";

    @Override
    public HttpServer apply(HttpServer server) {
        return server.doOnChannelInit((observer, channel, address) -> {
            // a TCP connection, not an HTTP/2 stream on one
            if (channel instanceof DuplexChannel) {
                boolean http11 = channel.pipeline().get(NettyPipeline.HttpCodec) != null;
                Reading reading = new Reading(!http11);
                channel.pipeline().addFirst(HANDLER, new Handler(reading));
                if (http11) {
                    channel.pipeline().addAfter(NettyPipeline.HttpCodec, DECODED, new Decoded(reading));
                }
            }
        });
    }

    /** Whether the client is known to be sending still; one a connection, touched by its event loop only. */
    private static final class Reading {

        /** No HTTP/1.1 decoder tells: assume the client may be. */
        private final boolean unknown;
        /** The decoder is inside a request: its head, or its body, has not ended. */
        private boolean midRequest;

        Reading(boolean unknown) {
            this.unknown = unknown;
        }

        boolean bytesToCome() {
            return unknown || midRequest;
        }
    }

    /** Right after the HTTP decoder: notes where each request it decodes begins and ends. */
    private static final class Decoded extends ChannelInboundHandlerAdapter {

        private final Reading reading;

        Decoded(Reading reading) {
            this.reading = reading;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof HttpObject decoded) {
                DecoderResult result = decoded.decoderResult();
                if (result.isFailure()) {
                    // a line or headers over the limit were cut off unread; a chunk broke with the body still coming;
                    // anything else refused is read to where the decoder stopped framing it
                    reading.midRequest = result.cause() instanceof TooLongFrameException || !(decoded instanceof HttpRequest);
                } else if (decoded instanceof LastHttpContent) {
                    reading.midRequest = false;
                } else if (decoded instanceof HttpRequest) {
                    reading.midRequest = true;
                }
            }
            ctx.fireChannelRead(msg);
        }
    }

    /** First in the pipeline: every close passes it last, and it sees the bytes before the HTTP codec does. */
    private static final class Handler extends ChannelDuplexHandler {

        private final Reading reading;
        private boolean lingering;
        private long dropped;

        Handler(Reading reading) {
            this.reading = reading;
        }

        @Override
        public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
            DuplexChannel channel = (DuplexChannel) ctx.channel();
            if (lingering) {
                channel.closeFuture().addListener(closed -> promise.trySuccess());
                return;
            }
            if (!channel.isActive() || channel.isInputShutdown() || channel.isOutputShutdown() || !reading.bytesToCome()) {
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
