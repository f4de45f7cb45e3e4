package dev.tollgate.testsupport.metrics;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * docs/metric-series.txt: the series the chart's dashboard and alerts may name, by the service (and the
 * state of it) that exports them. A service's scrape test asks {@link #missingFrom} which of its
 * section's series a live scrape lacks, so a renamed or dropped meter fails there rather than leaving a
 * panel empty or an alert silent.
 */
public final class SeriesCatalog {

    private static final Pattern SAMPLE = Pattern.compile("(?m)^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]");

    private SeriesCatalog() {
    }

    /** The series listed for {@code section} (e.g. {@code check-service}, {@code check-service/store-down}). */
    public static List<String> section(String section) {
        List<String> series = lines().stream()
                .map(line -> line.split("\\s+"))
                .filter(fields -> fields.length == 2 && fields[0].equals(section))
                .map(fields -> fields[1])
                .toList();
        if (series.isEmpty()) {
            throw new IllegalArgumentException("docs/metric-series.txt lists nothing for " + section);
        }
        return series;
    }

    /** The section's series that a Prometheus text scrape does not contain as a sample. */
    public static List<String> missingFrom(String scrape, String section) {
        Set<String> exported = samples(scrape);
        return section(section).stream().filter(series -> !exported.contains(series)).toList();
    }

    /** The sample names of a Prometheus text scrape. */
    public static Set<String> samples(String scrape) {
        Matcher matcher = SAMPLE.matcher(scrape);
        Set<String> names = new java.util.TreeSet<>();
        while (matcher.find()) {
            names.add(matcher.group(1));
        }
        return names;
    }

    private static List<String> lines() {
        Path file = find();
        try {
            return Files.readAllLines(file).stream()
                    .map(String::strip)
                    .filter(line -> !line.isEmpty() && !line.startsWith("#"))
                    .collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // Maven runs a module's tests in its own folder, an IDE often in the root: walk up to docs/.
    private static Path find() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path file = dir.resolve("docs/metric-series.txt");
            if (Files.isRegularFile(file)) {
                return file;
            }
        }
        throw new IllegalStateException("no docs/metric-series.txt above " + Path.of("").toAbsolutePath());
    }
}
