package dev.tollgate.check.envoy;

import dev.tollgate.limiter.Limiter;
import dev.tollgate.limiter.rules.DescriptorBook;
import dev.tollgate.limiter.rules.RuleBook;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.micrometer.core.instrument.MeterRegistry;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * Envoy's rate limit service ({@link RateLimitGrpcService}, the same code as the gRPC port's) on an engine of the
 * caller's, on a loopback port of its own, its calls on the transport's event loops as {@link RlsServer}'s are: what a
 * pod's warm-up drives before the pod is ready.
 */
public final class LoopbackRlsServer {

    private LoopbackRlsServer() {
    }

    /**
     * @param engine an engine of its own, never the pod's: every call sent here is spent on it
     * @param meters a registry of its own, so the calls' series never reach the pod's scrape
     */
    public static Server start(Limiter engine, DescriptorBook descriptors, RuleBook rules, MeterRegistry meters) {
        RateLimitGrpcService rateLimits = new RateLimitGrpcService(engine, descriptors, rules, new RlsMetrics(meters));
        try {
            return NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                    .directExecutor()
                    .addService(rateLimits)
                    .build()
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a loopback port for the warm-up's gRPC calls", e);
        }
    }
}
