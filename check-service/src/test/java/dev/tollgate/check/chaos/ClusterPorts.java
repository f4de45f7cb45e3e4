package dev.tollgate.check.chaos;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** A port nothing listens on, for a rules-service that is down. */
final class ClusterPorts {

    private ClusterPorts() {
    }

    static int closed() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("no free port", e);
        }
    }
}
