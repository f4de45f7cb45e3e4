package dev.tollgate.client.testing;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.dns.DatagramDnsQuery;
import io.netty.handler.codec.dns.DatagramDnsQueryDecoder;
import io.netty.handler.codec.dns.DatagramDnsResponse;
import io.netty.handler.codec.dns.DatagramDnsResponseEncoder;
import io.netty.handler.codec.dns.DefaultDnsRawRecord;
import io.netty.handler.codec.dns.DnsQuestion;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.handler.codec.dns.DnsResponseCode;
import io.netty.handler.codec.dns.DnsSection;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real DNS server on a loopback UDP port that answers one name's A records, as the cluster DNS answers a headless
 * Service's (one record per ready pod, TTL 0 here so nothing may cache it). The records can be changed while it
 * runs, as pods come and go.
 */
public final class LoopbackDns implements AutoCloseable {

    private final String name;
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final Channel channel;
    private final AtomicInteger queries = new AtomicInteger();
    private volatile List<InetAddress> records;

    public LoopbackDns(String name, List<String> addresses) throws InterruptedException {
        this.name = name.endsWith(".") ? name : name + ".";
        answer(addresses);
        this.channel = new Bootstrap().group(group).channel(NioDatagramChannel.class)
                .handler(new ChannelInitializer<DatagramChannel>() {
                    @Override
                    protected void initChannel(DatagramChannel ch) {
                        ch.pipeline().addLast(new DatagramDnsQueryDecoder(), new DatagramDnsResponseEncoder(), new Answerer());
                    }
                })
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
    }

    /** The A records from now on; an empty list answers NXDOMAIN. */
    public void answer(List<String> addresses) {
        try {
            List<InetAddress> parsed = new java.util.ArrayList<>();
            for (String address : addresses) {
                parsed.add(InetAddress.getByName(address));
            }
            records = List.copyOf(parsed);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    public InetSocketAddress address() {
        return (InetSocketAddress) channel.localAddress();
    }

    public int queries() {
        return queries.get();
    }

    private final class Answerer extends SimpleChannelInboundHandler<DatagramDnsQuery> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, DatagramDnsQuery query) {
            queries.incrementAndGet();
            DnsQuestion question = query.recordAt(DnsSection.QUESTION);
            DatagramDnsResponse response = new DatagramDnsResponse(query.recipient(), query.sender(), query.id());
            response.setRecursionAvailable(true);
            response.addRecord(DnsSection.QUESTION, question);
            List<InetAddress> now = records;
            if (!question.name().equalsIgnoreCase(name) || now.isEmpty()) {
                response.setCode(DnsResponseCode.NXDOMAIN);
            } else if (question.type() == DnsRecordType.A) {
                for (InetAddress address : now) {
                    response.addRecord(DnsSection.ANSWER,
                            new DefaultDnsRawRecord(question.name(), DnsRecordType.A, 0, Unpooled.wrappedBuffer(address.getAddress())));
                }
            }
            ctx.writeAndFlush(response);
        }
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
    }
}
