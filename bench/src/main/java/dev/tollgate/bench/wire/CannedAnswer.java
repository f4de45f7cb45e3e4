package dev.tollgate.bench.wire;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One answer of check-service as it came over the wire (its headers and body), which the floor sends back
 * to every request: the floor's answers are byte for byte the size of the pod's. Stored as a small text
 * file for the floor's JVM: one {@code name: value} line per header, a blank line, then the body.
 */
public record CannedAnswer(List<Map.Entry<String, String>> headers, byte[] body) {

    /** Headers the floor's own HTTP codec writes for itself (or that differ between HTTP/1.1 and HTTP/2). */
    private static final List<String> TRANSPORT = List.of("content-length", "transfer-encoding", "connection", "keep-alive");

    public CannedAnswer {
        headers = headers.stream()
                .filter(header -> !TRANSPORT.contains(header.getKey().toLowerCase(java.util.Locale.ROOT)))
                .map(header -> Map.entry(header.getKey(), header.getValue()))
                .toList();
        body = body.clone();
    }

    public String toText() {
        StringBuilder text = new StringBuilder();
        for (Map.Entry<String, String> header : headers) {
            text.append(header.getKey()).append(": ").append(header.getValue()).append('\n');
        }
        return text.append('\n').append(new String(body, StandardCharsets.UTF_8)).toString();
    }

    public static CannedAnswer parse(String text) {
        int end = text.indexOf("\n\n");
        if (end < 0) {
            throw new IllegalArgumentException("a canned answer is headers, a blank line and a body; no blank line in: " + text);
        }
        List<Map.Entry<String, String>> headers = new ArrayList<>();
        for (String line : text.substring(0, end).split("\n")) {
            if (line.isEmpty()) {
                continue;
            }
            int colon = line.indexOf(": ");
            if (colon <= 0) {
                throw new IllegalArgumentException("not a header line: " + line);
            }
            headers.add(Map.entry(line.substring(0, colon), line.substring(colon + 2)));
        }
        return new CannedAnswer(headers, text.substring(end + 2).getBytes(StandardCharsets.UTF_8));
    }

    public void writeTo(Path file) {
        try {
            Files.writeString(file, toText());
        } catch (IOException e) {
            throw new UncheckedIOException("could not write the floor's canned answer to " + file, e);
        }
    }

    public static CannedAnswer readFrom(Path file) {
        try {
            return parse(Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException("could not read the floor's canned answer from " + file, e);
        }
    }
}
