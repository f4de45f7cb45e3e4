package dev.tollgate.bench.wire;

import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.MoreExecutors;
import dev.tollgate.bench.load.Answer;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Envoy's {@code ShouldRateLimit} over plaintext HTTP/2, as Envoy calls check-service's RLS port: one
 * channel (one connection) per requested connection, used in turn, each multiplexing its calls.
 */
final class GrpcWireClient implements WireClient {

    private final List<ManagedChannel> channels = new ArrayList<>();
    private final List<RateLimitServiceGrpc.RateLimitServiceFutureStub> stubs = new ArrayList<>();
    private final AtomicInteger next = new AtomicInteger();

    GrpcWireClient(String host, int port, int connections) {
        for (int i = 0; i < connections; i++) {
            ManagedChannel channel = NettyChannelBuilder.forAddress(host, port).usePlaintext()
                    // answers complete on the transport's thread: no executor hop per call
                    .directExecutor()
                    .build();
            channels.add(channel);
            stubs.add(RateLimitServiceGrpc.newFutureStub(channel));
        }
    }

    @Override
    public CompletableFuture<Answer> send(WireCheck check) {
        CompletableFuture<Answer> answer = new CompletableFuture<>();
        RateLimitServiceGrpc.RateLimitServiceFutureStub stub = stubs.get(Math.floorMod(next.getAndIncrement(), stubs.size()));
        Futures.addCallback(stub.withDeadlineAfter(30, TimeUnit.SECONDS).shouldRateLimit(check.envoy()), new FutureCallback<>() {
            @Override
            public void onSuccess(RateLimitResponse response) {
                answer.complete(response.getOverallCode() == RateLimitResponse.Code.OK ? Answer.ALLOWED
                        : response.getOverallCode() == RateLimitResponse.Code.OVER_LIMIT ? Answer.DENIED : Answer.FAILED);
            }

            @Override
            public void onFailure(Throwable error) {
                answer.complete(Answer.FAILED);
            }
        }, MoreExecutors.directExecutor());
        return answer;
    }

    @Override
    public void close() {
        for (ManagedChannel channel : channels) {
            channel.shutdownNow();
        }
        for (ManagedChannel channel : channels) {
            try {
                channel.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
