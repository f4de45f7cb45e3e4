package dev.tollgate.bench.wire;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.function.Supplier;

/** Loopback ports for the servers: consecutive from a base port, or (base 0) whatever is free now. */
public final class Ports {

    private int next;

    public Ports(int basePort) {
        this.next = basePort;
    }

    /** The ports of the pods started one after another (the cold starts, the cold ramps). */
    public PodPorts pod() {
        return new PodPorts(this);
    }

    /**
     * A pod's HTTP, management and gRPC ports, reused by starts minutes apart. Any process's outgoing connection may
     * be given one of them in between (a cold ramp lost its round to that once): a start that fails because a port
     * was taken meanwhile runs once more on new ones, which the later starts keep.
     */
    public static final class PodPorts {

        private final Ports ports;
        private int http;
        private int management;
        private int grpc;

        private PodPorts(Ports ports) {
            this.ports = ports;
            draw();
        }

        public int http() {
            return http;
        }

        public int management() {
            return management;
        }

        public int grpc() {
            return grpc;
        }

        /** {@code start}'s result on these ports, or on new ones if it lost one of these meanwhile. */
        public <T> T start(String what, Supplier<T> start) {
            try {
                return start.get();
            } catch (IllegalStateException e) {
                if (!String.valueOf(e.getMessage()).contains("Address already in use")) {
                    throw e;
                }
                System.out.printf("  scenario 8: a port of %s was taken meanwhile; again on new ports%n", what);
                draw();
                return start.get();
            }
        }

        private void draw() {
            http = ports.next();
            management = ports.next();
            grpc = ports.next();
        }
    }

    public int next() {
        if (next > 0) {
            return next++;
        }
        // the usual race with whoever binds it next; the server's start fails loudly if it lost
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }
}
