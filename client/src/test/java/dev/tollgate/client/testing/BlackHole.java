package dev.tollgate.client.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * A pod whose address drops every SYN, as a dead node's does while its endpoint is still listed, but on loopback: a
 * listening socket that never accepts, its accept queue filled by connections of its own. Linux then drops further
 * SYNs (it does not refuse them), so a client's connect hangs in SYN_SENT until its connect timeout.
 */
public final class BlackHole implements AutoCloseable {

    private static final int FILL_TIMEOUT_MS = 300;

    private final ServerSocket socket;
    private final List<Socket> fillers = new ArrayList<>();

    public BlackHole() throws IOException {
        this.socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), socket.getLocalPort());
        // the kernel queues backlog + 1 handshakes; the connect that times out is the proof that the queue is full
        for (int i = 0; i < 16; i++) {
            Socket filler = new Socket();
            try {
                filler.connect(address, FILL_TIMEOUT_MS);
                fillers.add(filler);
            } catch (SocketTimeoutException full) {
                filler.close();
                return;
            }
        }
        close();
        throw new IllegalStateException("the accept queue of " + address + " never filled: its SYNs are not dropped here");
    }

    public URI base() {
        return URI.create("http://127.0.0.1:" + socket.getLocalPort());
    }

    @Override
    public void close() throws IOException {
        for (Socket filler : fillers) {
            filler.close();
        }
        socket.close();
    }
}
