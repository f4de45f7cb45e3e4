package dev.tollgate.bench.wire;

import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.MoreExecutors;
import dev.tollgate.bench.load.Answer;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Envoy's {@code ShouldRateLimit} over plaintext HTTP/2, as Envoy calls check-service's RLS port: one
 * channel (one connection) per requested connection, used in turn, each multiplexing its calls.
 */
public final class GrpcWireClient implements WireClient {

    private final List<ManagedChannel> channels = new ArrayList<>();
    private final List<RateLimitServiceGrpc.RateLimitServiceFutureStub> stubs = new ArrayList<>();
    private final AtomicInteger next = new AtomicInteger();
    private final Duration deadline;

    GrpcWireClient(String host, int port, int connections) {
        this(host, port, connections, Duration.ofSeconds(30));
    }

    /** @param deadline each call's gRPC deadline: past it the call fails with DEADLINE_EXCEEDED */
    public GrpcWireClient(String host, int port, int connections, Duration deadline) {
        this.deadline = deadline;
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
        return call(check.envoy()).handle((response, error) -> error != null ? Answer.FAILED
                : response.getOverallCode() == RateLimitResponse.Code.OK ? Answer.ALLOWED
                : response.getOverallCode() == RateLimitResponse.Code.OVER_LIMIT ? Answer.DENIED : Answer.FAILED);
    }

    /**
     * One {@code ShouldRateLimit} call on the next channel in turn: completes with the response, or exceptionally with
     * the call's failure (a {@code StatusRuntimeException}).
     */
    public CompletableFuture<RateLimitResponse> call(RateLimitRequest request) {
        CompletableFuture<RateLimitResponse> answer = new CompletableFuture<>();
        RateLimitServiceGrpc.RateLimitServiceFutureStub stub = stubs.get(Math.floorMod(next.getAndIncrement(), stubs.size()));
        Futures.addCallback(stub.withDeadlineAfter(deadline.toNanos(), TimeUnit.NANOSECONDS).shouldRateLimit(request),
                new FutureCallback<>() {
                    @Override
                    public void onSuccess(RateLimitResponse response) {
                        answer.complete(response);
                    }

                    @Override
                    public void onFailure(Throwable error) {
                        answer.completeExceptionally(error);
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
