package dev.tollgate.testsupport.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * HTTP/1.1 written and read by hand on a loopback socket, for what no HTTP client sends or shows: a malformed
 * request, a chunked body of the test's own framing, the header names exactly as the server wrote them.
 */
public final class RawHttp {

    private static final Pattern LENGTH = Pattern.compile("(?im)^content-length: *(\\d+)");
    private static final int READ_TIMEOUT_MS = 10_000;

    private RawHttp() {
    }

    /** An answer as it came: its head (status line and headers, up to the blank line), status and body, de-chunked. */
    public record Answer(String head, int status, String body) {

        /** The first value of a header, by name in any case; null when absent. */
        public String header(String name) {
            Matcher value = Pattern.compile("(?im)^" + Pattern.quote(name) + ": *([^\r\n]*)").matcher(head);
            return value.find() ? value.group(1) : null;
        }
    }

    /** One request on its own connection; the answer read to its {@code Content-Length}, or to its last chunk. */
    public static Answer exchange(int port, String request) throws IOException {
        try (Socket socket = send(port, request)) {
            return read(socket.getInputStream());
        }
    }

    /** The next answer on a connection: its head, and its body read to its {@code Content-Length} or to its last chunk. */
    public static Answer read(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed in the answer's head: " + head);
            }
            head.write(b);
        }
        String headers = head.toString(StandardCharsets.ISO_8859_1);
        Matcher length = LENGTH.matcher(headers);
        byte[] body = length.find() ? in.readNBytes(Integer.parseInt(length.group(1)))
                : headers.toLowerCase(Locale.ROOT).contains("transfer-encoding: chunked") ? chunks(in) : new byte[0];
        return new Answer(headers, Integer.parseInt(headers.substring(9, 12)), new String(body, StandardCharsets.UTF_8));
    }

    /** The bytes sent, and everything read until the server closes the connection: for answers that must close it. */
    public static String untilClosed(int port, String request) throws IOException {
        try (Socket socket = send(port, request)) {
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** The bytes sent, and the connection closed without reading: a client that goes away mid-request. */
    public static void abandon(int port, String request) throws IOException {
        send(port, request).close();
    }

    private static Socket send(int port, String request) throws IOException {
        Socket socket = new Socket("127.0.0.1", port);
        try {
            socket.setSoTimeout(READ_TIMEOUT_MS);
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.UTF_8));
            out.flush();
            return socket;
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }

    private static byte[] chunks(InputStream in) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (int size = chunkSize(in); size > 0; size = chunkSize(in)) {
            body.write(in.readNBytes(size));
            in.readNBytes(2);
        }
        return body.toByteArray();
    }

    private static int chunkSize(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int b = in.read(); b >= 0 && b != '\n'; b = in.read()) {
            line.append((char) b);
        }
        return Integer.parseInt(line.toString().strip(), 16);
    }
}
