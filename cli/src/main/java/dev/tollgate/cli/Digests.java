package dev.tollgate.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The digests a diff saw, one domain a line as {@code sha256sum} writes them ({@code <digest>  <domain>}): written by
 * {@code diff --digests-out}, read by {@code apply --digests}, so that an apply made after a reviewed diff is refused
 * (409) for a domain that changed in between, rather than applying over what nobody saw.
 */
final class Digests {

    private static final Pattern DIGEST = Pattern.compile("[0-9a-f]{64}");

    private Digests() {
    }

    static void write(Path file, Map<String, String> byDomain) {
        StringBuilder text = new StringBuilder();
        byDomain.forEach((domain, digest) -> text.append(digest).append("  ").append(domain).append('\n'));
        try {
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw Failure.usage("cannot write " + file + ": " + e.getMessage());
        }
    }

    static Map<String, String> read(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw Failure.usage("cannot read " + file + ": " + e.getMessage());
        }
        Map<String, String> byDomain = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.isBlank()) {
                continue;
            }
            String digest = line.length() > 66 ? line.substring(0, 64) : "";
            if (!DIGEST.matcher(digest).matches() || !line.startsWith("  ", 64)) {
                throw Failure.usage(file + " line " + (i + 1) + " is not \"<digest>  <domain>\", as diff --digests-out writes it");
            }
            byDomain.put(line.substring(66), digest);
        }
        return byDomain;
    }
}
