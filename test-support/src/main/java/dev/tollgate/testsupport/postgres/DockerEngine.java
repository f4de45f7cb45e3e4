package dev.tollgate.testsupport.postgres;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;

/**
 * Whether a Docker engine answers. Testcontainers is asked only when some sign of one exists (DOCKER_HOST,
 * a socket file, a Testcontainers config), since it logs an error page when it finds none.
 */
final class DockerEngine {

    static final String PROPERTY = "tollgate.postgres.docker";

    private static final Logger log = LoggerFactory.getLogger(DockerEngine.class);

    private DockerEngine() {
    }

    static boolean reachable() {
        if ("never".equals(System.getProperty(PROPERTY))) {
            return false;
        }
        if (!anySign()) {
            return false;
        }
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            log.info("no usable Docker engine: {}", e.toString());
            return false;
        }
    }

    private static boolean anySign() {
        if (System.getenv("DOCKER_HOST") != null) {
            return true;
        }
        String home = System.getProperty("user.home");
        List<Path> candidates = List.of(
                Path.of("/var/run/docker.sock"),
                Path.of(home, ".docker", "run", "docker.sock"),
                Path.of(home, ".testcontainers.properties"),
                Path.of(Optional.ofNullable(System.getenv("XDG_RUNTIME_DIR")).orElse("/nonexistent"), "docker.sock"));
        return candidates.stream().anyMatch(Files::exists);
    }
}
