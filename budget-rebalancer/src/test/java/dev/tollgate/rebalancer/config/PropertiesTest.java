package dev.tollgate.rebalancer.config;

import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.ByteArrayResource;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PropertiesTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(3);
    private static final RegionsProperties.Redis LOCAL = new RegionsProperties.Redis(List.of("redis://local:7000"), null, null);

    private static RegionsProperties.Region region(String seeds, Double share) {
        return new RegionsProperties.Region(seeds == null ? null : List.of(seeds), null, null, share);
    }

    @Test
    void runsOneRegionFromTheInstancesOwnRedisWhenNoRegionsAreListed() {
        List<RegionsProperties.Resolved> regions = new RegionsProperties("local", LOCAL, null).resolve(TIMEOUT);

        assertThat(regions).singleElement().satisfies(r -> {
            assertThat(r.endpoint().name()).isEqualTo("local");
            assertThat(r.endpoint().redis().seeds()).containsExactly("redis://local:7000");
            assertThat(r.defaultShare()).isEqualTo(1.0);
        });
    }

    @Test
    void sortsRegionsByNameAndLetsTheOwnRegionUseTheInstancesRedis() {
        Map<String, RegionsProperties.Region> map = new LinkedHashMap<>();
        map.put("us-east", region(null, 0.60));
        map.put("eu-west", region("redis://eu:7000", 0.25));
        map.put("ap-south", region("redis://ap:7000", 0.15));

        List<RegionsProperties.Resolved> regions = new RegionsProperties("us-east", LOCAL, map).resolve(TIMEOUT);

        assertThat(regions).extracting(r -> r.endpoint().name()).containsExactly("ap-south", "eu-west", "us-east");
        assertThat(regions.get(2).endpoint().redis().seeds()).containsExactly("redis://local:7000");
        assertThat(regions.get(2).endpoint().redis().commandTimeout()).isEqualTo(TIMEOUT);
    }

    @Test
    void bindsTheRegionsFileTheHelmChartWrites() throws Exception {
        // helm/tollgate's regions.yml for eu-west (RebalancerRegionsChartTest checks the chart writes this shape),
        // imported through SPRING_CONFIG_IMPORT, with the variables its Deployment takes from the regions' Secrets
        String file = """
                tollgate:
                  regions:
                    ap-south:
                      default-share: 0.15
                      seeds: ${TOLLGATE_REGION_AP_SOUTH_SEEDS}
                      username: ${TOLLGATE_REGION_AP_SOUTH_USERNAME:}
                      password: ${TOLLGATE_REGION_AP_SOUTH_PASSWORD:}
                    eu-west:
                      default-share: 0.25
                    us-east:
                      default-share: 0.6
                      seeds: ${TOLLGATE_REGION_US_EAST_SEEDS}
                      username: ${TOLLGATE_REGION_US_EAST_USERNAME:}
                      password: ${TOLLGATE_REGION_US_EAST_PASSWORD:}
                """;
        StandardEnvironment environment = new StandardEnvironment();
        // the pod's environment in place of this machine's (under the name that gives env-var relaxed binding)
        environment.getPropertySources().replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, Map.of(
                "TOLLGATE_REGION", "eu-west",
                "TOLLGATE_REDIS_SEEDS", "rediss://eu-1:6379,rediss://eu-2:6379",
                "TOLLGATE_REGION_US_EAST_SEEDS", "rediss://us-1:6379,rediss://us-2:6379",
                "TOLLGATE_REGION_US_EAST_PASSWORD", "us-secret",
                "TOLLGATE_REGION_AP_SOUTH_SEEDS", "rediss://ap-1:6379")));
        new YamlPropertySourceLoader().load("regions.yml", new ByteArrayResource(file.getBytes(StandardCharsets.UTF_8)))
                .forEach(environment.getPropertySources()::addLast);

        List<RegionsProperties.Resolved> regions = Binder.get(environment).bind("tollgate", RegionsProperties.class).get().resolve(TIMEOUT);

        assertThat(regions).extracting(r -> r.endpoint().name()).containsExactly("ap-south", "eu-west", "us-east");
        assertThat(regions).extracting(RegionsProperties.Resolved::defaultShare).containsExactly(0.15, 0.25, 0.6);
        assertThat(regions.get(0).endpoint().redis().password()).as("no password in the Secret: none").isNull();
        assertThat(regions.get(1).endpoint().redis().seeds()).containsExactly("rediss://eu-1:6379", "rediss://eu-2:6379");
        assertThat(regions.get(2).endpoint().redis().seeds()).containsExactly("rediss://us-1:6379", "rediss://us-2:6379");
        assertThat(regions.get(2).endpoint().redis().password()).isEqualTo("us-secret");
    }

    @Test
    void namesTheMissingPropertyWhenARegionHasNoDefaultShareOrSeeds() {
        Map<String, RegionsProperties.Region> noShare = Map.of("us-east", region("redis://a:1", 0.6), "eu-west", region("redis://b:1", null));
        assertThatThrownBy(() -> new RegionsProperties(null, LOCAL, noShare).resolve(TIMEOUT))
                .hasMessageContaining("tollgate.regions.eu-west.default-share");

        Map<String, RegionsProperties.Region> noSeeds = Map.of("us-east", region("redis://a:1", 0.6), "eu-west", region(null, 0.4));
        assertThatThrownBy(() -> new RegionsProperties("us-east", LOCAL, noSeeds).resolve(TIMEOUT))
                .hasMessageContaining("tollgate.regions.eu-west.seeds");
    }

    @Test
    void refusesAnOwnRegionThatIsNotAmongTheRegions() {
        Map<String, RegionsProperties.Region> map = Map.of("us-east", region("redis://a:1", 1.0));

        assertThatThrownBy(() -> new RegionsProperties("eu-west", LOCAL, map).resolve(TIMEOUT))
                .hasMessageContaining("tollgate.region is eu-west");
    }

    @Test
    void refusesTimingsThatCannotWork() {
        assertThatThrownBy(() -> new RebalancerProperties(Duration.ofSeconds(10), Duration.ofSeconds(10), 0.1,
                Duration.ofMinutes(5), 0.01, 1, Duration.ofSeconds(3), 25_000))
                .hasMessageContaining("tollgate.rebalancer.usage-lag");
        assertThatThrownBy(() -> new RebalancerProperties(Duration.ofSeconds(10), Duration.ofSeconds(2), 0.1,
                Duration.ofSeconds(5), 0.01, 1, Duration.ofSeconds(3), 25_000))
                .hasMessageContaining("tollgate.rebalancer.idle-after");
        assertThatThrownBy(() -> new RebalancerProperties(Duration.ofSeconds(10), Duration.ofSeconds(2), 0,
                Duration.ofMinutes(5), 0.01, 1, Duration.ofSeconds(3), 25_000))
                .hasMessageContaining("tollgate.rebalancer.floor");
    }
}
