package dev.tollgate.rebalancer;

import dev.tollgate.limiter.usage.UsageRecorder;
import dev.tollgate.limiter.usage.UsageSettings;
import dev.tollgate.store.RedisStoreSettings;
import dev.tollgate.rebalancer.metrics.RebalancerMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.context.ConfigurableApplicationContext;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

/**
 * On real servers: keys a caller chooses do not reach region_budgets, and a merchant is still
 * rebalanced beside them. Usage is written as a pod from before the fix wrote it (every admitted entry,
 * whatever its rule), so what is shown here is the rebalancer's own filter: a spray of distinct IPs in
 * us-east, each at a fifth of its per-IP limit, and of account keys that each use a ten-thousandth of
 * theirs, beside a merchant's 70/30/0 on the same account rule; and the rows such a spray left before
 * the fix going back to the default split.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CallerChosenKeysIT {

    private static final Duration PERIOD = Duration.ofSeconds(2);
    private static final String ACCOUNT_RULE = "growth-global";
    private static final String IP_RULE = "per-ip";
    private static final String MERCHANT = "acct_7Q2";
    /** Rows an earlier spray left, as the rebalancer wrote them before the fix. */
    private static final int LEFT_OVER = 500;

    private ThreeRegions regions;
    private final List<UsageRecorder> recorders = new ArrayList<>();
    private final ScheduledExecutorService traffic = Executors.newSingleThreadScheduledExecutor();
    private final AtomicInteger sprayed = new AtomicInteger();
    private final AtomicInteger junk = new AtomicInteger();
    private ConfigurableApplicationContext rebalancer;

    @BeforeAll
    void start() throws SQLException {
        regions = new ThreeRegions("caller_chosen_keys_it");
        regions.createTokenBucketRule(ACCOUNT_RULE, 1_000, 1_000);
        regions.createTokenBucketRule(IP_RULE, "ip", 10, 20);
        regions.execute("INSERT INTO region_budgets (rule_id, limit_key, region, share)"
                + " SELECT 'per-ip', '192.0.2.' || k, r.region, r.share FROM generate_series(1, " + LEFT_OVER + ") AS k,"
                + " (VALUES ('us-east', 0.8), ('eu-west', 0.1), ('ap-south', 0.1)) AS r(region, share)");
        UsageSettings settings = UsageSettings.DEFAULTS.withFlushInterval(Duration.ofMillis(100));
        for (String region : ThreeRegions.NAMES) {
            recorders.add(UsageRecorder.start(RedisStoreSettings.of(regions.seeds(region)), settings, new SimpleMeterRegistry()));
        }
        Map<String, Object> properties = regions.rebalancerProperties(PERIOD);
        properties.put("tollgate.rebalancer.idle-after", "4s");
        rebalancer = ThreeRegions.startRebalancer(properties);
    }

    @AfterAll
    void stop() {
        traffic.shutdownNow();
        if (rebalancer != null) {
            rebalancer.close();
        }
        recorders.forEach(UsageRecorder::close);
        if (regions != null) {
            regions.close();
        }
    }

    private double skipped(String reason) {
        return Search.in(rebalancer.getBean(MeterRegistry.class)).name(RebalancerMetrics.KEYS_SKIPPED).tag("reason", reason).counter().count();
    }

    @Test
    void aSprayOfPerIpKeysAndBarelyUsedAccountKeysGetNoRowsWhileTheMerchantBesideThemIsRebalanced() throws SQLException {
        // every 50 ms: the merchant's 1,000/s limit used 70/30/0, and 20 new IPs in us-east that each spend
        // 20 of the 100 their 10/s limit allows in a 10 s window (400 new keys a second)
        traffic.scheduleAtFixedRate(() -> {
            recorders.get(0).admitted(ACCOUNT_RULE, MERCHANT, 35);
            recorders.get(1).admitted(ACCOUNT_RULE, MERCHANT, 15);
            for (int i = 0; i < 20; i++) {
                int n = sprayed.incrementAndGet();
                recorders.get(0).admitted(IP_RULE, "198.18." + (n / 256) + "." + (n % 256), 20);
            }
            // and 10 new account keys, each spending 1 of the 10,000 a window allows: far below the minimum
            for (int i = 0; i < 10; i++) {
                recorders.get(0).admitted(ACCOUNT_RULE, "acct_junk_" + junk.incrementAndGet(), 1);
            }
        }, 0, 50, TimeUnit.MILLISECONDS);

        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            Map<String, Double> shares = regions.shares(ACCOUNT_RULE, MERCHANT);
            assertThat(shares).as("the merchant's budgets").containsOnlyKeys("us-east", "eu-west", "ap-south");
            assertThat(shares.get("us-east")).isCloseTo(0.63, within(0.01));
            assertThat(shares.get("ap-south")).isCloseTo(0.10, within(0.01));
            assertThat(regions.count("SELECT count(*) FROM region_budgets WHERE rule_id = 'per-ip'"))
                    .as("per-IP rows: the %d left over go back to the default split, none is added for the sprayed IPs", LEFT_OVER).isZero();
            assertThat(regions.count("SELECT count(DISTINCT limit_key) FROM region_budgets WHERE rule_id = 'growth-global' AND limit_key <> '"
                    + MERCHANT + "'")).as("account keys that used less than the minimum share of their limit").isZero();
            assertThat(skipped("default_split")).as("sprayed IPs the rebalancer read and skipped").isGreaterThan(2_000);
            assertThat(skipped("below_minimum")).as("junk account keys read and skipped").isGreaterThan(1_000);
        });

        assertThat(regions.count("SELECT count(DISTINCT limit_key) FROM region_budgets")).as("keys with rows").isEqualTo(1);
    }
}
