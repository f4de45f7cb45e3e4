package dev.tollgate.rebalancer.config;

import org.junit.jupiter.api.Test;

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
