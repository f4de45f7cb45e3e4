package dev.tollgate.rebalancer.config;

import jakarta.validation.Validation;
import jakarta.validation.ValidatorFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.validation.ValidationBindHandler;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.validation.beanvalidation.SpringValidatorAdapter;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PropertiesTest {

    private static RegionsProperties.Region region(String nodes, Double share) {
        if (nodes == null) {
            return new RegionsProperties.Region(null, share, null);
        }
        DataRedisProperties redis = new DataRedisProperties();
        redis.setCluster(new DataRedisProperties.Cluster());
        redis.getCluster().setNodes(List.of(nodes));
        return new RegionsProperties.Region(null, share, redis);
    }

    @Test
    void runsOneRegionOnSpringsOwnRedisWhenNoRegionsAreListed() {
        List<RegionsProperties.Resolved> regions = new RegionsProperties("local", null).resolve();

        assertThat(regions).singleElement().satisfies(r -> {
            assertThat(r.name()).isEqualTo("local");
            assertThat(r.redis()).as("spring.data.redis.*").isEmpty();
            assertThat(r.defaultShare()).isEqualTo(1.0);
        });
    }

    @Test
    void sortsRegionsByNameAndLetsTheOwnRegionUseSpringsOwnRedis() {
        Map<String, RegionsProperties.Region> map = new LinkedHashMap<>();
        map.put("us-east", region(null, 0.60));
        map.put("eu-west", region("eu:7000", 0.25));
        map.put("ap-south", region("ap:7000", 0.15));

        List<RegionsProperties.Resolved> regions = new RegionsProperties("us-east", map).resolve();

        assertThat(regions).extracting(RegionsProperties.Resolved::name).containsExactly("ap-south", "eu-west", "us-east");
        assertThat(regions.get(2).redis()).isEmpty();
        assertThat(regions.get(1).redis()).hasValueSatisfying(redis -> assertThat(redis.getCluster().getNodes()).containsExactly("eu:7000"));
    }

    @Test
    void bindsTheRegionsFileTheHelmChartWrites() throws Exception {
        // a file keyed by region name (as an operator's SPRING_CONFIG_IMPORT would give it), with placeholders
        // for variables taken from the regions' Secrets: names with dashes stay map keys in a file
        String file = """
                tollgate:
                  regions:
                    ap-south:
                      default-share: 0.15
                      redis:
                        cluster:
                          nodes: ${TOLLGATE_REGION_AP_SOUTH_NODES}
                        username: ${TOLLGATE_REGION_AP_SOUTH_USERNAME:}
                        password: ${TOLLGATE_REGION_AP_SOUTH_PASSWORD:}
                        ssl:
                          enabled: true
                    eu-west:
                      default-share: 0.25
                    us-east:
                      default-share: 0.6
                      redis:
                        cluster:
                          nodes: ${TOLLGATE_REGION_US_EAST_NODES}
                        username: ${TOLLGATE_REGION_US_EAST_USERNAME:}
                        password: ${TOLLGATE_REGION_US_EAST_PASSWORD:}
                        ssl:
                          enabled: true
                """;
        StandardEnvironment environment = new StandardEnvironment();
        // the pod's environment in place of this machine's (under the name that gives env-var relaxed binding)
        environment.getPropertySources().replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, Map.of(
                "TOLLGATE_REGION", "eu-west",
                "TOLLGATE_REGION_US_EAST_NODES", "us-1:6379,us-2:6379",
                "TOLLGATE_REGION_US_EAST_PASSWORD", "us-secret",
                "TOLLGATE_REGION_AP_SOUTH_NODES", "ap-1:6379")));
        new YamlPropertySourceLoader().load("regions.yml", new ByteArrayResource(file.getBytes(StandardCharsets.UTF_8)))
                .forEach(environment.getPropertySources()::addLast);

        List<RegionsProperties.Resolved> regions = Binder.get(environment).bind("tollgate", RegionsProperties.class).get().resolve();

        assertThat(regions).extracting(RegionsProperties.Resolved::name).containsExactly("ap-south", "eu-west", "us-east");
        assertThat(regions).extracting(RegionsProperties.Resolved::defaultShare).containsExactly(0.15, 0.25, 0.6);
        DataRedisProperties apSouth = regions.get(0).redis().orElseThrow();
        assertThat(apSouth.getPassword()).as("no password in the Secret: none").isNullOrEmpty();
        assertThat(apSouth.getSsl().isEnabled()).isTrue();
        assertThat(regions.get(1).redis()).as("eu-west is this instance's region: spring.data.redis.*").isEmpty();
        DataRedisProperties usEast = regions.get(2).redis().orElseThrow();
        assertThat(usEast.getCluster().getNodes()).containsExactly("us-1:6379", "us-2:6379");
        assertThat(usEast.getPassword()).isEqualTo("us-secret");
    }

    @Test
    void bindsRegionsWithDashesFromEnvironmentVariablesByIndexAndName() {
        // the chart's form: an environment variable's name cannot spell us-east-1, its value can
        Map<String, Object> variables = Map.of(
                "TOLLGATE_REGION", "eu-west-1",
                "TOLLGATE_REGIONS_0_NAME", "us-east-1",
                "TOLLGATE_REGIONS_0_DEFAULTSHARE", "0.6",
                "TOLLGATE_REGIONS_0_REDIS_CLUSTER_NODES", "us-1:6379,us-2:6379",
                "TOLLGATE_REGIONS_0_REDIS_PASSWORD", "us-secret",
                "TOLLGATE_REGIONS_0_REDIS_SSL_ENABLED", "true",
                "TOLLGATE_REGIONS_0_REDIS_CONNECTTIMEOUT", "750ms",
                "TOLLGATE_REGIONS_1_NAME", "eu-west-1",
                "TOLLGATE_REGIONS_1_DEFAULTSHARE", "0.4");

        List<RegionsProperties.Resolved> regions = bindFromEnvironment(variables).resolve();

        assertThat(regions).extracting(RegionsProperties.Resolved::name).containsExactly("eu-west-1", "us-east-1");
        assertThat(regions).extracting(RegionsProperties.Resolved::defaultShare).containsExactly(0.4, 0.6);
        assertThat(regions.get(0).redis()).as("this instance's region: spring.data.redis.*").isEmpty();
        DataRedisProperties usEast = regions.get(1).redis().orElseThrow();
        assertThat(usEast.getCluster().getNodes()).containsExactly("us-1:6379", "us-2:6379");
        assertThat(usEast.getPassword()).isEqualTo("us-secret");
        assertThat(usEast.getSsl().isEnabled()).isTrue();
        assertThat(usEast.getConnectTimeout()).isEqualTo(Duration.ofMillis(750));
        assertThat(regions.get(1).property()).isEqualTo("tollgate.regions[0]");
    }

    @Test
    void namesTheVariableOfAnIndexedRegionWithoutAName() {
        RegionsProperties properties = bindFromEnvironment(Map.of(
                "TOLLGATE_REGIONS_0_DEFAULTSHARE", "1", "TOLLGATE_REGIONS_0_REDIS_CLUSTER_NODES", "a:1"));

        assertThatThrownBy(properties::resolve).hasMessageContaining("tollgate.regions[0].name (TOLLGATE_REGIONS_0_NAME) is missing");
    }

    @Test
    void refusesTwoEntriesForOneRegion() {
        Map<String, RegionsProperties.Region> map = Map.of("us-east-1", region("a:1", 0.5),
                "0", new RegionsProperties.Region("us-east-1", 0.5, region("b:1", 0.5).redis()));

        assertThatThrownBy(() -> new RegionsProperties(null, map).resolve()).hasMessageContaining("both name region us-east-1");
    }

    @Test
    void namesAnIndexedRegionsMissingNodesByItsIndex() {
        RegionsProperties properties = bindFromEnvironment(Map.of("TOLLGATE_REGION", "b",
                "TOLLGATE_REGIONS_0_NAME", "a", "TOLLGATE_REGIONS_0_DEFAULTSHARE", "0.5",
                "TOLLGATE_REGIONS_1_NAME", "b", "TOLLGATE_REGIONS_1_DEFAULTSHARE", "0.5"));

        assertThatThrownBy(properties::resolve).hasMessageContaining("tollgate.regions[0].redis.cluster.nodes: name region a's");
    }

    /** Bound as at start-up from a pod's environment (under the name that gives env-var relaxed binding), nothing else. */
    private static RegionsProperties bindFromEnvironment(Map<String, Object> variables) {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().remove(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME);
        environment.getPropertySources().replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, variables));
        return Binder.get(environment).bind("tollgate", RegionsProperties.class).get();
    }

    @Test
    void namesTheMissingPropertyWhenARegionHasNoDefaultShareOrNodes() {
        Map<String, RegionsProperties.Region> noShare = Map.of("us-east", region("a:1", 0.6), "eu-west", region("b:1", null));
        assertThatThrownBy(() -> new RegionsProperties(null, noShare).resolve())
                .hasMessageContaining("tollgate.regions.eu-west.default-share");

        Map<String, RegionsProperties.Region> noNodes = Map.of("us-east", region("a:1", 0.6), "eu-west", region(null, 0.4));
        assertThatThrownBy(() -> new RegionsProperties("us-east", noNodes).resolve())
                .hasMessageContaining("tollgate.regions.eu-west.redis.cluster.nodes");
    }

    @Test
    void refusesAnOwnRegionThatIsNotAmongTheRegions() {
        Map<String, RegionsProperties.Region> map = Map.of("us-east", region("a:1", 1.0));

        assertThatThrownBy(() -> new RegionsProperties("eu-west", map).resolve())
                .hasMessageContaining("tollgate.region is eu-west");
    }

    @Test
    void bindsTheDesignsTimingsWhenNothingIsSet() {
        RebalancerProperties rebalancer = bindRebalancer(Map.of());

        assertThat(rebalancer.period()).isEqualTo(Duration.ofSeconds(10));
        assertThat(rebalancer.usageLag()).isEqualTo(Duration.ofSeconds(2));
        assertThat(rebalancer.floor()).isEqualTo(0.10);
        assertThat(rebalancer.idleAfter()).isEqualTo(Duration.ofMinutes(5));
        assertThat(rebalancer.minChange()).isEqualTo(0.01);
        assertThat(rebalancer.minUsage()).isEqualTo(0.10);
        assertThat(rebalancer.lockKey()).isEqualTo(0x746f6c6c67617465L);
        assertThat(rebalancer.readDeadline()).isEqualTo(Duration.ofSeconds(3));
        assertThat(rebalancer.maxKeysPerCycle()).isEqualTo(25_000);
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource({
            "tollgate.rebalancer.period, 500ms, tollgate.rebalancer.period",
            "tollgate.rebalancer.usage-lag, 10s, tollgate.rebalancer.usage-lag must be below tollgate.rebalancer.period",
            "tollgate.rebalancer.usage-lag, -1s, tollgate.rebalancer.usage-lag",
            "tollgate.rebalancer.idle-after, 5s, tollgate.rebalancer.idle-after must be at least tollgate.rebalancer.period",
            "tollgate.rebalancer.floor, 0, tollgate.rebalancer.floor",
            "tollgate.rebalancer.floor, 1.5, tollgate.rebalancer.floor",
            "tollgate.rebalancer.min-change, 1, tollgate.rebalancer.min-change",
            "tollgate.rebalancer.min-usage, -0.1, tollgate.rebalancer.min-usage",
            "tollgate.rebalancer.min-usage, 0.2, tollgate.rebalancer.min-usage must be at most tollgate.rebalancer.floor",
            "tollgate.rebalancer.read-deadline, 0s, tollgate.rebalancer.read-deadline",
            "tollgate.rebalancer.read-deadline, 10s, tollgate.rebalancer.read-deadline must be below tollgate.rebalancer.period",
            "tollgate.rebalancer.max-keys-per-cycle, 0, tollgate.rebalancer.max-keys-per-cycle",
    })
    void refusesTimingsThatCannotWorkNamingTheProperty(String property, String value, String named) {
        assertThatThrownBy(() -> bindRebalancer(Map.of(property, value)))
                .isInstanceOf(BindException.class)
                .satisfies(e -> assertThat(e.getMessage() + " " + e.getCause()).contains(named));
    }

    @Test
    void refusesARegionsDefaultShareOutsideZeroToOne() {
        assertThatThrownBy(() -> bind("tollgate", RegionsProperties.class, Map.of("tollgate.regions.eu-west.default-share", "1.5")))
                .isInstanceOf(BindException.class)
                .satisfies(e -> assertThat(e.getMessage() + " " + e.getCause()).contains("tollgate.regions.eu-west.default-share"));
    }

    private static RebalancerProperties bindRebalancer(Map<String, String> values) {
        return bind("tollgate.rebalancer", RebalancerProperties.class, values);
    }

    /** As Spring Boot binds a {@code @Validated} properties record at start-up. */
    private static <T> T bind(String prefix, Class<T> type, Map<String, String> values) {
        try (ValidatorFactory validation = Validation.buildDefaultValidatorFactory()) {
            return new Binder(new MapConfigurationPropertySource(values)).bindOrCreate(prefix, Bindable.of(type),
                    new ValidationBindHandler(new SpringValidatorAdapter(validation.getValidator())));
        }
    }
}
