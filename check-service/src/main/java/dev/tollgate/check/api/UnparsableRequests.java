package dev.tollgate.check.api;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.DecoderResultProvider;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.util.AttributeKey;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;
import reactor.netty.Connection;
import reactor.netty.NettyPipeline;
import reactor.netty.http.server.HttpServer;
import tools.jackson.databind.json.JsonMapper;

/**
 * Problem details for a request that is not HTTP Netty's decoder can read: a malformed or repeated
 * {@code Content-Length}, both a length and chunking, a bad chunk, a header name with a space, a request
 * line or headers over the decoder's limits. Reactor Netty answers these itself, before Spring or the
 * check's route see anything (400, 414 or 431, and closes the connection), with an empty body: a gateway
 * would get no {@code code} to act on.
 *
 * <p>Reactor Netty keeps deciding when and whether to answer (a failure after the answer went out gets
 * none); this handler, between the HTTP codec and Reactor's handler, only notes the decoder's failure on
 * the way in and gives that empty answer a body on the way out.
 *
 * <p>A body whose framing breaks after its headers were read (a bad chunk) is answered by Reactor Netty while
 * WebFlux is still reading it. WebFlux's own answer to the failed read then cannot go out: as a web filter,
 * this drops the error of that late attempt, so that the request counts as the 400 it got, not as a 500 of
 * the service logged at ERROR (which a client could otherwise raise at will, and which pages on the 5xx alert).
 */
@Component
class UnparsableRequests implements NettyServerCustomizer, WebFilter {

    private static final String HANDLER = "tollgate.unparsableRequests";
    /** Set on a connection once Netty's decoder refused a request on it: Reactor Netty answers and closes it. */
    private static final AttributeKey<Boolean> REFUSED = AttributeKey.valueOf("tollgate.decoderRefused");

    private final JsonMapper json;

    UnparsableRequests(JsonMapper json) {
        this.json = json;
    }

    @Override
    public HttpServer apply(HttpServer server) {
        return server.doOnChannelInit((observer, channel, address) -> {
            // HTTP/1.1 connections only: an HTTP/2 stream's frames are checked by the frame codec instead
            if (channel.pipeline().get(NettyPipeline.HttpTrafficHandler) != null) {
                channel.pipeline().addBefore(NettyPipeline.HttpTrafficHandler, HANDLER, new Handler());
            }
        });
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        return chain.filter(exchange).onErrorResume(error -> answeredByNetty(exchange), error -> Mono.empty());
    }

    /** Whether Reactor Netty sent this request's answer itself, behind WebFlux's back. */
    private static boolean answeredByNetty(ServerWebExchange exchange) {
        return ServerHttpResponseDecorator.getNativeResponse(exchange.getResponse()) instanceof Connection connection
                && Boolean.TRUE.equals(connection.channel().attr(REFUSED).get());
    }

    byte[] problem(int status, Throwable failure) {
        HttpStatus known = HttpStatus.resolve(status);
        String why = failure == null || failure.getMessage() == null ? "" : ": " + abbreviate(failure.getMessage());
        ProblemDetail problem = CheckProblems.problem(known == null ? HttpStatus.BAD_REQUEST : known, CheckProblems.codeFor(status),
                "The request is not HTTP/1.1 this service can read" + why + ".");
        return json.writeValueAsBytes(problem);
    }

    private static String abbreviate(String message) {
        String line = message.strip();
        return line.length() <= 200 ? line : line.substring(0, 200) + "...";
    }

    /** One a connection: the failure it saw last, until the answer to it went out. */
    private final class Handler extends ChannelDuplexHandler {

        private Throwable failure;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof DecoderResultProvider decoded && decoded.decoderResult().isFailure()) {
                failure = decoded.decoderResult().cause();
                ctx.channel().attr(REFUSED).set(Boolean.TRUE);
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (failure != null && msg instanceof FullHttpResponse answer
                    && answer.status().code() >= 400 && !answer.content().isReadable()) {
                byte[] body = problem(answer.status().code(), failure);
                failure = null;
                FullHttpResponse problem = answer.replace(Unpooled.wrappedBuffer(body));
                answer.release();
                problem.headers()
                        .set(HttpHeaderNames.CONTENT_TYPE, MediaType.APPLICATION_PROBLEM_JSON_VALUE)
                        .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
                ctx.write(problem, promise);
                return;
            }
            ctx.write(msg, promise);
        }
    }
}
