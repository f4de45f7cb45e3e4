package dev.tollgate.rebalancer;

import dev.tollgate.store.RedisStoreSettings;
import dev.tollgate.limiter.usage.UsageRecorder;
import dev.tollgate.limiter.usage.UsageSettings;
import dev.tollgate.rebalancer.metrics.RebalancerMetrics;
import dev.tollgate.testsupport.metrics.SeriesCatalog;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ConfigurableApplicationContext;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

/**
 * The rebalancer end to end on real servers: three regions (three Redis Clusters), one PostgreSQL, pods'
 * usage fed through one {@link UsageRecorder} per region, and two rebalancer instances contending for
 * the lock. One scenario in order, because each step builds on the budgets the one before wrote:
 * budgets follow usage, one instance works and another takes over, a region goes down.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RebalancerIT {

    private static final Logger log = LoggerFactory.getLogger(RebalancerIT.class);
    private static final Duration PERIOD = Duration.ofSeconds(2);
    /** A give-up bound for shares that converge over cycles: 45 nominal cycles, where about 10 are needed. */
    private static final Duration CONVERGED_WITHIN = PERIOD.multipliedBy(45);
    private static final String RULE = "growth-global";
    /** Its traffic is 70/30/0 across us-east, eu-west, ap-south: the design's example. */
    private static final String DESIGN_KEY = "acct_7Q2";
    /** 40/30/30 until ap-south goes down. */
    private static final String SPREAD_KEY = "user:{spread}";

    private ThreeRegions regions;
    private final List<UsageRecorder> recorders = new ArrayList<>();
    private final ScheduledExecutorService traffic = Executors.newSingleThreadScheduledExecutor();
    /** Cost per 50 ms tick, per region in {@link ThreeRegions#NAMES} order, of each key. */
    private volatile long[] designKeyTraffic = {35, 15, 0};
    private volatile long[] spreadKeyTraffic = {20, 15, 15};
    private final List<ConfigurableApplicationContext> rebalancers = new ArrayList<>();

    @BeforeAll
    void start() throws SQLException {
        regions = new ThreeRegions("rebalancer_it");
        regions.createTokenBucketRule(RULE, 1_000, 1_000);
        // a window holds 100 flushes of each recorder, give or take one at its edges: counts within 1%
        UsageSettings settings = UsageSettings.DEFAULTS.withFlushInterval(Duration.ofMillis(100));
        for (String region : ThreeRegions.NAMES) {
            recorders.add(UsageRecorder.start(RedisStoreSettings.of(regions.seeds(region)), settings, new SimpleMeterRegistry()));
        }
        Map<String, Object> properties = regions.rebalancerProperties(PERIOD);
        // tighter than the default 1%, so that budgets written from a partial first window are corrected
        properties.put("tollgate.rebalancer.min-change", "0.002");
        rebalancers.add(ThreeRegions.startRebalancer(properties));
        rebalancers.add(ThreeRegions.startRebalancer(properties));
    }

    @AfterAll
    void stop() {
        traffic.shutdownNow();
        rebalancers.forEach(ConfigurableApplicationContext::close);
        recorders.forEach(UsageRecorder::close);
        if (regions != null) {
            regions.close();
        }
    }

    private void feed() {
        traffic.scheduleAtFixedRate(() -> {
            long[] design = designKeyTraffic;
            long[] spread = spreadKeyTraffic;
            for (int i = 0; i < recorders.size(); i++) {
                if (design[i] > 0) {
                    recorders.get(i).admitted(RULE, DESIGN_KEY, design[i]);
                }
                if (spread[i] > 0) {
                    recorders.get(i).admitted(RULE, SPREAD_KEY, spread[i]);
                }
            }
        }, 0, 50, TimeUnit.MILLISECONDS);
    }

    /**
     * Within a point of the expected shares: a window's counts are off by up to one flush interval per
     * region at its edges, and the first window after the traffic starts holds only part of it.
     */
    private void assertShares(String key, double usEast, double euWest, double apSouth) throws SQLException {
        Map<String, Double> shares = regions.shares(RULE, key);
        assertThat(shares).as("%s's budgets", key).containsOnlyKeys("us-east", "eu-west", "ap-south");
        assertThat(shares.get("us-east")).as("us-east").isCloseTo(usEast, within(0.01));
        assertThat(shares.get("eu-west")).as("eu-west").isCloseTo(euWest, within(0.01));
        assertThat(shares.get("ap-south")).as("ap-south").isCloseTo(apSouth, within(0.01));
        assertThat(shares.get("us-east") + shares.get("eu-west") + shares.get("ap-south")).isCloseTo(1.0, within(1e-12));
    }

    private static MeterRegistry registry(ConfigurableApplicationContext context) {
        return context.getBean(MeterRegistry.class);
    }

    private static double gauge(ConfigurableApplicationContext context, String name) {
        return Search.in(registry(context)).name(name).gauge().value();
    }

    private static double cycles(ConfigurableApplicationContext context, String outcome) {
        return Search.in(registry(context)).name(RebalancerMetrics.CYCLES).tag("outcome", outcome).counter().count();
    }

    private ConfigurableApplicationContext active() {
        List<ConfigurableApplicationContext> active = rebalancers.stream()
                .filter(context -> gauge(context, RebalancerMetrics.ACTIVE) == 1).toList();
        assertThat(active).as("active rebalancers").hasSize(1);
        return active.get(0);
    }

    private long lockHolders() throws SQLException {
        return regions.count("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
                + " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())");
    }

    @Test
    @Order(1)
    void budgetsFollowEachRegionsUsageWithinTwentySeconds() {
        long started = System.nanoTime();
        feed();

        await().atMost(CONVERGED_WITHIN).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
            assertShares(DESIGN_KEY, 0.63, 0.27, 0.10);
            assertShares(SPREAD_KEY, 0.40, 0.30, 0.30);
        });
        log.info("budgets 63/27/10 for 70/30/0 usage {} ms after the traffic started", (System.nanoTime() - started) / 1_000_000);
    }

    @Test
    @Order(2)
    void servesHealthAndTheRebalancersMetricsForPrometheus() throws Exception {
        ConfigurableApplicationContext context = active();
        String port = context.getEnvironment().getProperty("local.server.port");
        HttpClient http = HttpClient.newHttpClient();

        HttpResponse<String> ready = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health/readiness")).build(),
                HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/prometheus")).build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(ready.statusCode()).isEqualTo(200);
        assertThat(metrics.body()).contains("tollgate_rebalancer_cycle_duration_seconds_count{", "tollgate_rebalancer_keys_rebalanced_total{",
                "tollgate_rebalancer_keys_written_total{", "tollgate_rebalancer_cycles_total{");
        assertThat(metrics.body()).containsPattern("(?m)^tollgate_rebalancer_active\\{[^}]*} 1\\.0$")
                .containsPattern("(?m)^tollgate_rebalancer_regions_unreachable\\{[^}]*} 0\\.0$");
        // every series the chart's dashboard and alerts name for the rebalancer (docs/metric-series.txt)
        assertThat(SeriesCatalog.missingFrom(metrics.body(), "budget-rebalancer")).isEmpty();
    }

    @Test
    @Order(3)
    void onlyOneInstanceWorksAndAnotherTakesOverWithinOneCycle() throws Exception {
        ConfigurableApplicationContext first = active();
        ConfigurableApplicationContext second = rebalancers.get(rebalancers.indexOf(first) == 0 ? 1 : 0);
        assertThat(cycles(second, "complete") + cycles(second, "partial")).as("the standby never rebalanced").isZero();
        assertThat(cycles(second, "standby")).isPositive();
        assertThat(lockHolders()).isEqualTo(1);

        // the active instance stops; its rows disappear, so only a working successor can bring them back
        first.close();
        rebalancers.remove(first);
        regions.execute("DELETE FROM region_budgets WHERE limit_key = '" + DESIGN_KEY + "'");
        long stopped = System.nanoTime();

        await().atMost(PERIOD.plusSeconds(2)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
            assertThat(gauge(second, RebalancerMetrics.ACTIVE)).isEqualTo(1);
            assertShares(DESIGN_KEY, 0.63, 0.27, 0.10);
        });
        log.info("the standby took over and rewrote the budgets {} ms after the active one stopped", (System.nanoTime() - stopped) / 1_000_000);
        assertThat(lockHolders()).isEqualTo(1);

        // a new standby joins; then the active one's session is cut, as if its host vanished
        ConfigurableApplicationContext third = ThreeRegions.startRebalancer(withMinChange(regions.rebalancerProperties(PERIOD)));
        rebalancers.add(third);
        await().atMost(PERIOD.plusSeconds(2)).untilAsserted(() -> assertThat(cycles(third, "standby")).isPositive());
        regions.execute("SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted"
                + " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())");
        regions.execute("DELETE FROM region_budgets WHERE limit_key = '" + DESIGN_KEY + "'");

        await().atMost(PERIOD.plusSeconds(2)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
            assertShares(DESIGN_KEY, 0.63, 0.27, 0.10);
            assertThat(rebalancers.stream().mapToDouble(context -> gauge(context, RebalancerMetrics.ACTIVE)).sum()).isEqualTo(1);
        });
        assertThat(lockHolders()).isEqualTo(1);
    }

    private static Map<String, Object> withMinChange(Map<String, Object> properties) {
        properties.put("tollgate.rebalancer.min-change", "0.002");
        return properties;
    }

    @Test
    @Order(4)
    void anUnreachableRegionKeepsItsSharesWhileTheOthersAreRebalanced() {
        regions.stopRegion("ap-south");
        // ap-south's traffic can no longer be seen; us-east and eu-west swap weights
        spreadKeyTraffic = new long[] {15, 20, 15};

        // ap-south keeps 30%; the other 70% follows 15 : 20. The shares get there over cycles, and on a loaded box a
        // cycle takes longer than its period (the stopped region's read waits out its deadline in each): the wait is
        // bounded by many cycles' worth of time, not by ten nominal ones
        await().atMost(CONVERGED_WITHIN).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
            assertShares(SPREAD_KEY, 0.30, 0.40, 0.30);
            assertShares(DESIGN_KEY, 0.63, 0.27, 0.10);
        });
        ConfigurableApplicationContext active = active();
        assertThat(gauge(active, RebalancerMetrics.REGIONS_UNREACHABLE)).isEqualTo(1);
        assertThat(cycles(active, "partial")).isPositive();
        assertThat(Search.in(registry(active)).name(RebalancerMetrics.REGION_READS).tag("region", "ap-south")
                .tag("outcome", "unreachable").counter().count()).isPositive();
    }
}
