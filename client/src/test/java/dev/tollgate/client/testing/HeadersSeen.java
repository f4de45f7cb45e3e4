package dev.tollgate.client.testing;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpRequest;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import reactor.netty.NettyPipeline;
import reactor.netty.http.server.HttpServer;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * One request header's value on every request a check-service pod receives, as its server decoded it: given to
 * {@link CheckPod} as a bean, so a test sees what a client really sent. Read before the pod's own routes (its check
 * runs on Reactor Netty, ahead of WebFlux's filters); an absent header is recorded as {@link #ABSENT}.
 */
public final class HeadersSeen implements NettyServerCustomizer {

    public static final String ABSENT = "(absent)";
    private static final String HANDLER = "test.headersSeen";

    private final String header;
    private final ConcurrentLinkedQueue<String> values = new ConcurrentLinkedQueue<>();

    public HeadersSeen(String header) {
        this.header = header;
    }

    public List<String> values() {
        return new ArrayList<>(values);
    }

    public void clear() {
        values.clear();
    }

    @Override
    public HttpServer apply(HttpServer server) {
        return server.doOnChannelInit((observer, channel, address) -> {
            if (channel.pipeline().get(NettyPipeline.HttpTrafficHandler) != null) {
                channel.pipeline().addBefore(NettyPipeline.HttpTrafficHandler, HANDLER, new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        if (msg instanceof HttpRequest) {
                            String value = ((HttpRequest) msg).headers().get(header);
                            values.add(value == null ? ABSENT : value);
                        }
                        ctx.fireChannelRead(msg);
                    }
                });
            }
        });
    }
}
