package dev.tollgate.bench.wire;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Loopback ports for the servers: consecutive from a base port, or (base 0) whatever is free now. */
public final class Ports {

    private int next;

    public Ports(int basePort) {
        this.next = basePort;
    }

    /**
     * Whether a server failed to start because its port was taken meanwhile: a port found free is reused by later
     * starts, minutes apart, and any process's outgoing connection may be given it in between (a cold ramp lost its
     * round to that once). The caller starts again on new ports.
     */
    public static boolean taken(RuntimeException failure) {
        return String.valueOf(failure.getMessage()).contains("Address already in use");
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
