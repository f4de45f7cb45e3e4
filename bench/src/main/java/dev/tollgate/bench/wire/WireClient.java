package dev.tollgate.bench.wire;

import dev.tollgate.bench.BenchOptions.Protocol;
import dev.tollgate.bench.load.Answer;

import java.util.concurrent.CompletableFuture;

/** The load generator's side of one protocol to one server: sends a check, completes with how it was answered. */
public interface WireClient extends AutoCloseable {

    /** Sends at once or queues for a free connection; never blocks the caller. */
    CompletableFuture<Answer> send(WireCheck check);

    @Override
    void close();

    /**
     * @param connections HTTP/1.1: connections, each with one request at a time, later requests queued for
     *                    the next free one; h2c and gRPC: connections that multiplex requests
     */
    static WireClient connect(Protocol protocol, String host, int port, int connections) {
        return switch (protocol) {
            case HTTP1, H2C -> new HttpWireClient(protocol, host, port, connections);
            case GRPC -> new GrpcWireClient(host, port, connections);
        };
    }
}
