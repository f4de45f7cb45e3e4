package dev.tollgate.check.warmup;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;

/**
 * Drives a loopback HTTP/1.1 server with whole requests written as bytes, over keep-alive connections: each thread
 * writes one request on each of its connections, then reads their answers, so that a few threads keep many checks in
 * flight while spending next to nothing of their own on the client side. Answers are counted by whether their status
 * is 200; their bodies are skipped.
 */
final class HttpLoad {

    private static final int TIMEOUT_MS = 5_000;

    private final InetSocketAddress server;
    private final List<byte[]> requests;
    private final int connectionsPerThread;
    final LongAdder answered = new LongAdder();
    final LongAdder failed = new LongAdder();

    HttpLoad(InetSocketAddress server, List<byte[]> requests, int connectionsPerThread) {
        this.server = server;
        this.requests = requests;
        this.connectionsPerThread = connectionsPerThread;
    }

    /** Sends until {@code stop} says so; a connection that fails is counted, and the thread's connections opened again. */
    void run(int offset, BooleanSupplier stop) {
        List<Connection> connections = new ArrayList<>(connectionsPerThread);
        int n = offset;
        while (!stop.getAsBoolean()) {
            try {
                while (connections.size() < connectionsPerThread) {
                    connections.add(new Connection(server));
                }
                for (Connection connection : connections) {
                    connection.out.write(requests.get(n++ % requests.size()));
                    connection.out.flush();
                }
                for (Connection connection : connections) {
                    (connection.readAnswer() == 200 ? answered : failed).increment();
                }
            } catch (IOException | RuntimeException e) {
                failed.increment();
                connections.forEach(Connection::close);
                connections.clear();
                pause();
            }
        }
        connections.forEach(Connection::close);
    }

    /** A server that refuses is not hammered: the warm-up is a guest on the pod's CPU. */
    private static void pause() {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static final class Connection {

        private final Socket socket;
        private final OutputStream out;
        private final InputStream in;

        Connection(InetSocketAddress server) {
            try {
                socket = new Socket();
                socket.setTcpNoDelay(true);
                socket.setSoTimeout(TIMEOUT_MS);
                socket.connect(server, TIMEOUT_MS);
                out = new BufferedOutputStream(socket.getOutputStream(), 1024);
                in = new BufferedInputStream(socket.getInputStream(), 4096);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** Reads one answer's head and skips its body; answers its status. */
        int readAnswer() throws IOException {
            int status = -1;
            int length = 0;
            StringBuilder line = new StringBuilder(64);
            while (true) {
                int c = in.read();
                if (c < 0) {
                    throw new IOException("the warm-up server closed the connection");
                }
                if (c != '\n') {
                    if (c != '\r') {
                        line.append((char) c);
                    }
                    continue;
                }
                if (line.isEmpty()) {
                    break;
                }
                if (status < 0) {
                    status = Integer.parseInt(line.substring(9, 12));
                } else if (line.length() > 15 && line.substring(0, 15).equalsIgnoreCase("content-length:")) {
                    length = Integer.parseInt(line.substring(15).trim());
                }
                line.setLength(0);
            }
            long skipped = 0;
            while (skipped < length) {
                long n = in.skip(length - skipped);
                if (n <= 0) {
                    if (in.read() < 0) {
                        throw new IOException("the warm-up server closed the connection mid-answer");
                    }
                    n = 1;
                }
                skipped += n;
            }
            return status;
        }

        void close() {
            try {
                socket.close();
            } catch (IOException e) {
                // nothing left to do with it
            }
        }
    }
}
