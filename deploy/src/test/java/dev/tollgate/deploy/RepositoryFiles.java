package dev.tollgate.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Files at the repository root (the chart, docker-compose.yml, the Dockerfiles), found from wherever the tests run. */
final class RepositoryFiles {

    private static final Path ROOT = findRoot();

    private RepositoryFiles() {
    }

    static Path path(String relative) {
        return ROOT.resolve(relative);
    }

    static String read(String relative) {
        try {
            return Files.readString(path(relative));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // Maven runs the tests in deploy/, an IDE often in the root: walk up to the folder holding the chart.
    private static Path findRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("helm/tollgate/Chart.yaml"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no helm/tollgate/Chart.yaml above " + Path.of("").toAbsolutePath());
    }
}
