package dev.tollgate.check.warmup;

import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;

/**
 * Drives a loopback gRPC server with Envoy's {@code ShouldRateLimit} calls on one channel, as an Envoy does, a bounded
 * number in flight; answers are counted by whether the call ended with a response.
 */
final class RlsLoad {

    private final InetSocketAddress server;
    private final List<RateLimitRequest> requests;
    private final int inFlight;
    final LongAdder answered = new LongAdder();
    final LongAdder failed = new LongAdder();

    RlsLoad(InetSocketAddress server, List<RateLimitRequest> requests, int inFlight) {
        this.server = server;
        this.requests = requests;
        this.inFlight = inFlight;
    }

    void run(BooleanSupplier stop) {
        ManagedChannel channel = NettyChannelBuilder.forAddress(server).usePlaintext().directExecutor().build();
        Semaphore slots = new Semaphore(inFlight);
        RateLimitServiceGrpc.RateLimitServiceStub stub = RateLimitServiceGrpc.newStub(channel);
        try {
            for (int n = 0; !stop.getAsBoolean(); n++) {
                if (!slots.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                    continue;
                }
                stub.withDeadlineAfter(5, TimeUnit.SECONDS).shouldRateLimit(requests.get(n % requests.size()), new StreamObserver<>() {
                    @Override
                    public void onNext(RateLimitResponse value) {
                        answered.increment();
                    }

                    @Override
                    public void onError(Throwable t) {
                        failed.increment();
                        slots.release();
                    }

                    @Override
                    public void onCompleted() {
                        slots.release();
                    }
                });
            }
            // the calls in flight end by their deadline at the latest
            slots.tryAcquire(inFlight, 6, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            channel.shutdownNow();
        }
    }
}
