package dev.tollgate.check.startup;

import dev.tollgate.check.CheckServiceApplication;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A pod refuses to start on a configuration it cannot serve with, naming what to set: production's
 * application.yml has no local Redis to fall back on. Each refusal comes before any connection.
 */
class StartupRefusalIT {

    @Test
    void refusesToStartWithoutTheRegionsRedisClusterNamingTheVariable() {
        assertThatThrownBy(() -> start()).hasStackTraceContaining("SPRING_DATA_REDIS_CLUSTER_NODES");
    }

    @Test
    void refusesASettingOutOfRangeNamingTheProperty() {
        assertThatThrownBy(() -> start("spring.data.redis.cluster.nodes=127.0.0.1:1", "tollgate.pods.min=0"))
                .hasStackTraceContaining("tollgate.pods.min");
    }

    private static void start(String... extra) {
        List<String> arguments = new ArrayList<>(List.of(
                "--server.port=0",
                "--management.server.port=0",
                "--tollgate.grpc.port=0",
                "--spring.main.banner-mode=off",
                "--tollgate.rules.file=" + Path.of("src/test/resources/rules-test.yml").toAbsolutePath()));
        for (String property : extra) {
            arguments.add("--" + property);
        }
        new SpringApplicationBuilder(CheckServiceApplication.class).web(WebApplicationType.REACTIVE)
                .run(arguments.toArray(String[]::new)).close();
    }
}
