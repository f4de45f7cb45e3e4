package dev.tollgate.devstack.app;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Fails the stack before anything starts when one of its ports is taken: finding out after PostgreSQL,
 * the Redis Cluster and two services are up costs the user half a minute and ends in a stack trace.
 */
public final class PortCheck {

    private PortCheck() {
    }

    /**
     * @param ports what will listen on each port, e.g. {@code "rules-service" -> 8081}
     * @throws IllegalStateException naming every taken port and what to do about it
     */
    public static void requireFree(String address, Map<String, Integer> ports) {
        List<String> taken = new ArrayList<>();
        ports.forEach((what, port) -> {
            if (!bindable(address, port)) {
                taken.add(port + " (" + what + ")");
            }
        });
        if (!taken.isEmpty()) {
            throw new IllegalStateException("already in use on " + address + ": port " + String.join(", port ", taken)
                    + ". Stop what listens there (e.g. a dev stack still running), or choose other ports: "
                    + "--base-port=9080 moves them all, --check-port, --extra-check-port, --rules-port and --rebalancer-port one each.");
        }
    }

    /** Binds the way the servers will, with SO_REUSEADDR, so a socket in TIME_WAIT from a previous run does not count. */
    static boolean bindable(String address, int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(address, port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
