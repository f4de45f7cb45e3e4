package dev.tollgate.bench.wire;

import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A stand-in for envoyproxy/ratelimit in tests: an Envoy RLS v3 server on a free loopback port that answers every call
 * OK, a status per descriptor, and counts the calls. Enough for the bench's RLS comparison to run its code path without
 * the real binary, which the bench never builds or downloads.
 */
public final class FakeRlsServer implements AutoCloseable {

    private final Server server;
    private final AtomicLong calls = new AtomicLong();

    public FakeRlsServer() {
        RateLimitServiceGrpc.RateLimitServiceImplBase service = new RateLimitServiceGrpc.RateLimitServiceImplBase() {
            @Override
            public void shouldRateLimit(RateLimitRequest request, StreamObserver<RateLimitResponse> answer) {
                calls.incrementAndGet();
                RateLimitResponse.Builder response = RateLimitResponse.newBuilder().setOverallCode(RateLimitResponse.Code.OK);
                for (int i = 0; i < request.getDescriptorsCount(); i++) {
                    response.addStatuses(RateLimitResponse.DescriptorStatus.newBuilder().setCode(RateLimitResponse.Code.OK));
                }
                answer.onNext(response.build());
                answer.onCompleted();
            }
        };
        try {
            this.server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(service).build().start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start the fake RLS server", e);
        }
    }

    public int port() {
        return server.getPort();
    }

    public long calls() {
        return calls.get();
    }

    @Override
    public void close() throws InterruptedException {
        server.shutdownNow();
        server.awaitTermination(5, TimeUnit.SECONDS);
    }
}
