package dev.tollgate.testsupport.config;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A service's configuration reference (docs/configuration/&lt;service&gt;.md) against the properties its
 * build declares: the {@code spring-boot-configuration-processor}'s metadata in target/classes. A property
 * added to a {@code @ConfigurationProperties} record and not documented shows up here.
 */
public final class ConfigurationReference {

    private static final Pattern NAME = Pattern.compile("\"name\"\\s*:\\s*\"(tollgate\\.[^\"]+)\"");

    private ConfigurationReference() {
    }

    /** The module's declared {@code tollgate.*} properties that docs/configuration/{@code service}.md does not name. */
    public static List<String> undocumented(String service) {
        String metadata = read(Path.of("target/classes/META-INF/spring-configuration-metadata.json"));
        String reference = read(docs().resolve("configuration").resolve(service + ".md"));
        // the "properties" array only: "groups" names the records, "hints" the values
        int start = metadata.indexOf("\"properties\"");
        int end = metadata.indexOf("\"hints\"", start);
        Matcher matcher = NAME.matcher(metadata.substring(start, end < 0 ? metadata.length() : end));
        List<String> declared = new java.util.ArrayList<>();
        while (matcher.find()) {
            declared.add(matcher.group(1));
        }
        if (declared.isEmpty()) {
            throw new IllegalStateException("no tollgate.* property in the configuration metadata: is spring-boot-configuration-processor on?");
        }
        return declared.stream().distinct().filter(name -> !reference.contains("`" + name + "`")).toList();
    }

    private static Path docs() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve("docs/configuration"))) {
                return dir.resolve("docs");
            }
        }
        throw new IllegalStateException("no docs/configuration above " + Path.of("").toAbsolutePath());
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
