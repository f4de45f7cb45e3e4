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
