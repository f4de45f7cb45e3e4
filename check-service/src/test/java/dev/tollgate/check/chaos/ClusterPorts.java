package dev.tollgate.check.chaos;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for a cluster that does not exist yet, so that pods can be given its seeds first. Chosen as RedisCluster
 * chooses its own: below the ephemeral range, with the cluster bus port (port + 10000) free too.
 */
final class ClusterPorts {

    private ClusterPorts() {
    }

    static List<Integer> free(int count) {
        List<Integer> ports = new ArrayList<>();
        for (int attempt = 0; ports.size() < count && attempt < 1_000; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(15_000, 22_000);
            if (!ports.contains(port) && bindable(port) && bindable(port + 10_000)) {
                ports.add(port);
            }
        }
        if (ports.size() < count) {
            throw new IllegalStateException("found only " + ports + " free port pairs");
        }
        return ports;
    }

    /** A port nothing listens on now, for a rules-service that is down. */
    static int closed() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("no free port", e);
        }
    }

    private static boolean bindable(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress("127.0.0.1", port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
