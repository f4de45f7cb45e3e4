package dev.tollgate.rebalancer.bench;

import dev.tollgate.store.RedisStoreSettings;
import dev.tollgate.limiter.usage.RedisUsageStore;
import dev.tollgate.store.key.UsageKeys;
import dev.tollgate.limiter.usage.UsageRecorder;
import dev.tollgate.limiter.usage.UsageSettings;
import dev.tollgate.rebalancer.budget.BudgetBook;
import dev.tollgate.rebalancer.budget.BudgetSplit;
import dev.tollgate.rebalancer.metrics.RebalancerMetrics;
import dev.tollgate.rebalancer.schedule.CycleResult;
import dev.tollgate.rebalancer.schedule.RebalanceCycle;
import dev.tollgate.rebalancer.store.BudgetStore;
import dev.tollgate.rebalancer.store.LeaderLock;
import dev.tollgate.rebalancer.usage.RegionEndpoint;
import dev.tollgate.rebalancer.usage.UsageReader;
import dev.tollgate.testsupport.postgres.Postgres;
import dev.tollgate.store.spring.SpringDataCounterReads;
import dev.tollgate.testsupport.redis.Node;
import dev.tollgate.testsupport.redis.RedisCluster;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.flywaydb.core.Flyway;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

/**
 * One rebalancing cycle over the design's live token buckets: 40,000 accounts x 6 route rules = 240,000
 * keys, each with usage in all three regions (three local Redis Clusters), against a real PostgreSQL.
 * Prints the time of each part of three cycles, the process CPU they took and the heap live after each:
 * the first after start-up (every key new), one over the same usage (nothing to write: the steady cycle),
 * and one where every key's split moved. The last two arguments are the accounts (40,000) and the keys a cycle may write (the
 * service's default, 25,000); 166667 accounts make 1,000,002 keys (run it with {@code -Xmx1g}: the heap bound
 * the cycles are measured under).
 *
 * <pre>
 * ./mvnw -B -q -o -pl budget-rebalancer test-compile dependency:build-classpath -Dmdep.outputFile=target/test-classpath.txt -Dmdep.includeScope=test
 * java -cp budget-rebalancer/target/test-classes:budget-rebalancer/target/classes:$(cat budget-rebalancer/target/test-classpath.txt) \
 *     dev.tollgate.rebalancer.bench.RebalanceBench [accounts] [max-keys-per-cycle]
 * </pre>
 */
public final class RebalanceBench {

    private static final List<String> REGIONS = List.of("ap-south", "eu-west", "us-east");
    private static final double[] DEFAULTS = {0.15, 0.25, 0.60};
    private static final List<String> RULES = List.of("route-labels", "route-rates", "route-shipments", "route-tracking",
            "route-returns", "route-webhooks");

    /** Far past the service's: the bench measures how long the read takes, on however loaded a machine. */
    private static final Duration READ_DEADLINE = Duration.ofSeconds(120);

    private RebalanceBench() {
    }

    public static void main(String[] args) throws Exception {
        int accounts = args.length > 0 ? Integer.parseInt(args[0]) : 40_000;
        // the service's default; pass a larger one to write every key in one transaction
        int maxKeysPerCycle = args.length > 1 ? Integer.parseInt(args[1]) : 25_000;
        int keys = accounts * RULES.size();
        System.out.printf("starting 3 Redis Clusters and PostgreSQL for %,d keys...%n", keys);
        List<CompletableFuture<RedisCluster>> starting = new ArrayList<>();
        for (int i = 0; i < REGIONS.size(); i++) {
            starting.add(CompletableFuture.supplyAsync(() -> RedisCluster.builder().start()));
        }
        List<RedisCluster> clusters = starting.stream().map(CompletableFuture::join).toList();
        try (Postgres postgres = Postgres.startPrivate()) {
            String url = postgres.newDatabase("rebalance_bench");
            Flyway.configure().dataSource(url, postgres.username(), postgres.password()).locations("classpath:db/migration").load().migrate();
            try (Connection connection = DriverManager.getConnection(url, postgres.username(), postgres.password());
                 // 10 a second: the 20 to 220 a window written below is above the 10% minimum usage, so every key is split
                 PreparedStatement insert = connection.prepareStatement("INSERT INTO rules (rule_id, domain, match_route, algorithm, rate_per_s, burst)"
                         + " VALUES (?, 'public-api', ?, 'token_bucket', 10, 20)")) {
                for (String rule : RULES) {
                    insert.setString(1, rule);
                    insert.setString(2, rule.substring("route-".length()));
                    insert.executeUpdate();
                }
            }

            // windows well in the past, named by fixed clocks: the pods write them, the cycle reads them
            long firstWindow = UsageKeys.windowStart(System.currentTimeMillis()) - 3_600;

            List<RegionEndpoint> endpoints = new ArrayList<>();
            List<LettuceConnectionFactory> factories = new ArrayList<>();
            for (int i = 0; i < REGIONS.size(); i++) {
                LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisClusterConfiguration(
                        clusters.get(i).nodes().stream().map(Node::hostAndPort).toList()));
                factory.afterPropertiesSet();
                factories.add(factory);
                endpoints.add(new RegionEndpoint(REGIONS.get(i), new SpringDataCounterReads(factory, READ_DEADLINE)));
            }
            BudgetSplit split = new BudgetSplit(REGIONS, DEFAULTS, 0.10);
            UsageReader reader = new UsageReader(endpoints, READ_DEADLINE);
            try (LeaderLock lock = new LeaderLock(() -> DriverManager.getConnection(url, postgres.username(), postgres.password()), 42)) {
                BudgetBook book = new BudgetBook(split, Duration.ofMinutes(5), 0.01, 0.10, maxKeysPerCycle);
                BudgetStore store = new BudgetStore(REGIONS);
                RebalancerMetrics metrics = new RebalancerMetrics(new SimpleMeterRegistry());
                Duration lag = Duration.ofSeconds(2);

                // a usage window expires 30 s after its last write: each is written right before its cycles read it
                report("usage written, first window", writeUsage(clusters, firstWindow, accounts, 1));
                RebalanceCycle first = cycleAt(firstWindow, lock, reader, store, book, metrics, lag);
                print("start-up, every key new", timed(first));
                // the same proportions added again: every key read and split, none moved (the steady cycle)
                report("usage written again, first window (renews its expiry)", writeUsage(clusters, firstWindow, accounts, 1));
                print("the same usage again", timed(first));
                report("usage written, second window (every key's split moved)", writeUsage(clusters, firstWindow + 10, accounts, 2));
                RebalanceCycle moved = cycleAt(firstWindow + 10, lock, reader, store, book, metrics, lag);
                print("every key's split moved", timed(moved));
            }
            factories.forEach(LettuceConnectionFactory::destroy);
        } finally {
            clusters.forEach(RedisCluster::close);
        }
    }

    /** A cycle whose clock reads the given window as the last closed one. */
    private static RebalanceCycle cycleAt(long window, LeaderLock lock, UsageReader reader, BudgetStore store, BudgetBook book,
                                          RebalancerMetrics metrics, Duration lag) {
        Clock clock = Clock.fixed(Instant.ofEpochSecond(window + UsageKeys.WINDOW_SECONDS).plus(lag).plusMillis(500), ZoneOffset.UTC);
        return new RebalanceCycle(lock, reader, store, book, metrics, clock, lag);
    }

    /**
     * Every key's usage in one window of every region, through one recorder per region (one flush of all
     * keys each: far more distinct keys than one pod sees in a second, so also a test of the write path).
     * Round 1: mostly us-east; round 2: mostly eu-west, so every key's split moves.
     */
    private static Duration writeUsage(List<RedisCluster> clusters, long window, int accounts, int round) throws Exception {
        Clock inWindow = Clock.fixed(Instant.ofEpochSecond(window + 5), ZoneOffset.UTC);
        UsageSettings settings = UsageSettings.DEFAULTS.withMaxKeysPerInterval(accounts * RULES.size() + 1)
                .withFlushInterval(Duration.ofSeconds(1));
        long flushing = 0;
        // one region at a time: a recorder counting a million keys is a few hundred MiB of this JVM's heap,
        // which the cycles measured here share
        for (int region = 0; region < clusters.size(); region++) {
            RedisUsageStore store = RedisUsageStore.connect(RedisStoreSettings.of(clusters.get(region).seedUris())
                    .withCommandTimeout(Duration.ofSeconds(30)));
            UsageRecorder recorder = UsageRecorder.start(store, settings.withFlushTimeout(Duration.ofSeconds(30)), new SimpleMeterRegistry(), inWindow);
            Thread.sleep(500); // connected
            Random random = new Random(round);
            for (int account = 0; account < accounts; account++) {
                String key = "acct_" + account;
                for (String rule : RULES) {
                    long base = 20 + random.nextInt(200);
                    // us-east-heavy, then eu-west-heavy: apart by far more than the 1% min-change
                    long apSouth = base * (5 + random.nextInt(10)) / 100;
                    long euWest = base * (round == 1 ? 20 + random.nextInt(10) : 60 + random.nextInt(10)) / 100;
                    long usEast = base * (round == 1 ? 60 + random.nextInt(10) : 20 + random.nextInt(10)) / 100;
                    recorder.admitted(rule, key, (region == 0 ? apSouth : region == 1 ? euWest : usEast) + 1);
                }
            }
            long started = System.nanoTime();
            recorder.close(); // flushes what was counted
            flushing += System.nanoTime() - started;
            // the recorder's 30 s expiry would end the first regions' window before the last is written
            keepWindow(clusters.get(region), window);
        }
        return Duration.ofNanos(flushing);
    }

    /** Gives a window's hashes ten minutes more, long past the cycles that read them. */
    private static void keepWindow(RedisCluster cluster, long window) {
        RedisClusterClient client = RedisClusterClient.create(cluster.seedUris().stream().map(RedisURI::create).toList());
        try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
            for (String hash : UsageKeys.windows(window)) {
                connection.sync().expire(hash, 600);
            }
        } finally {
            client.shutdown();
        }
    }

    private static void report(String what, Duration took) {
        System.out.printf("%-60s %,8d ms%n", what, took.toMillis());
    }

    /** Runs a cycle and prints the CPU time the process spent on it: on a shared machine, wall time is mostly waiting. */
    private static CycleResult timed(RebalanceCycle cycle) {
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpu = os.getProcessCpuTime();
        CycleResult result = cycle.run();
        System.out.printf("%-26s process CPU during the cycle %,d ms; load average %.1f%n", "",
                (os.getProcessCpuTime() - cpu) / 1_000_000, os.getSystemLoadAverage());
        return result;
    }

    /** A cycle's parts, and the heap live after it (a full collection first: the book and what the cycle keeps). */
    private static void print(String what, CycleResult result) {
        System.gc();
        long live = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        System.out.printf("%-26s live heap after the cycle %,d MiB (max %,d MiB)%n", "", live >> 20, Runtime.getRuntime().maxMemory() >> 20);
        System.out.printf("%-26s %-8s keys with usage %,d, written %,d, deferred %,d: read %,d ms, load+plan %,d ms, write %,d ms, total %,d ms%n",
                what, result.outcome(), result.keysWithUsage(), result.plan().writes().size(), result.plan().deferred(),
                result.read().toMillis(), result.compute().toMillis(), result.write().toMillis(), result.total().toMillis());
    }
}
