package dev.tollgate.rebalancer;

import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Configurations the rebalancer must refuse to start with, naming what to set: production's application.yml
 * has no local defaults to fall back on. Nothing here is reached: each refusal comes before any connection.
 */
class StartupRefusalIT {

    @Test
    void refusesToStartWithoutItsRegionsRedisClusterNamingTheVariable() {
        assertThatThrownBy(() -> start())
                .hasStackTraceContaining("spring.data.redis.cluster.nodes (SPRING_DATA_REDIS_CLUSTER_NODES)");
    }

    @Test
    void refusesATimingOutOfRangeNamingTheProperty() {
        assertThatThrownBy(() -> start("spring.data.redis.cluster.nodes=127.0.0.1:1", "tollgate.rebalancer.floor=0"))
                .hasStackTraceContaining("tollgate.rebalancer.floor");
    }

    private static void start(String... extra) {
        List<String> arguments = new ArrayList<>(List.of(
                "--server.port=0",
                "--spring.main.banner-mode=off",
                // never connected to: the refusals come first
                "--spring.datasource.url=jdbc:postgresql://127.0.0.1:1/none"));
        for (String property : extra) {
            arguments.add("--" + property);
        }
        new SpringApplicationBuilder(RebalancerApplication.class).run(arguments.toArray(String[]::new)).close();
    }
}
