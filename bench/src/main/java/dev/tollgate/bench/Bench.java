package dev.tollgate.bench;

import dev.tollgate.bench.fleet.Contender;
import dev.tollgate.bench.fleet.CountingStore;
import dev.tollgate.bench.fleet.Fleet;
import dev.tollgate.bench.load.Timeline;
import dev.tollgate.limiter.LimiterSettings;
import dev.tollgate.limiter.rules.RuleBook;
import dev.tollgate.store.RedisCounterStore;
import dev.tollgate.store.RedisStoreSettings;
import dev.tollgate.testsupport.redis.RedisCluster;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * What every scenario runs on: one real 3-primary Redis Cluster started for this run, one Redis client
 * that all simulated pods share (behind a counting port), and the run's options. Every run uses keys of
 * its own, so no bucket state crosses from one run into the next.
 */
public final class Bench implements AutoCloseable {

    public static final String DOMAIN = "bench";
    /** What the per-pod baseline divides every limit by: the fleet size it was configured for. */
    public static final int PODS = 50;

    private final BenchOptions options;
    private final RedisCluster cluster;
    private final RedisCounterStore redis;
    private final CountingStore store;
    private final LimiterSettings settings = LimiterSettings.DEFAULTS;
    private final AtomicLong runs = new AtomicLong();

    private Bench(BenchOptions options, RedisCluster cluster, RedisCounterStore redis) {
        this.options = options;
        this.cluster = cluster;
        this.redis = redis;
        this.store = new CountingStore(redis);
    }

    public static Bench start(BenchOptions options) {
        RedisCluster cluster = RedisCluster.builder().start();
        try {
            RedisCounterStore redis = RedisCounterStore.connect(
                    RedisStoreSettings.of(cluster.seedUris()).withCommandTimeout(options.commandTimeout()));
            if (!redis.isConnected()) {
                throw new IllegalStateException("could not connect to the bench's Redis Cluster at " + cluster.seedUris());
            }
            return new Bench(options, cluster, redis);
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    public BenchOptions options() {
        return options;
    }

    public RedisCluster cluster() {
        return cluster;
    }

    /** The one Redis client of the simulated pods (for peers that run their own scripts on it). */
    public RedisCounterStore redis() {
        return redis;
    }

    public CountingStore store() {
        return store;
    }

    /** A name no earlier run used, so each run starts from fresh (full) buckets. */
    public String key(String base) {
        return base + "-r" + runs.incrementAndGet();
    }

    /** Starts a run's clock now; the pods' store calls are counted into it until the next run starts. */
    public Timeline newRun(double maxSeconds, Function<String, String> classifier) {
        Timeline timeline = new Timeline(System.nanoTime(), maxSeconds + 10, classifier);
        store.recordInto(timeline);
        return timeline;
    }

    public Fleet fleet(Contender contender, int pods, RuleBook rules) {
        return contender.fleet(pods, PODS, rules, store, settings);
    }

    /** A short pause between runs, so that one run's late answers and garbage do not land in the next. */
    public void pause() {
        if (options.timeScale() >= 0.5) {
            System.gc();
        }
        try {
            Thread.sleep(Math.round(200 * Math.min(1, options.timeScale())));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public String redisVersion() {
        try {
            String info = redis.connection().sync().info("server");
            for (String line : info.split("\r?\n")) {
                if (line.startsWith("redis_version:")) {
                    return line.substring("redis_version:".length()).trim();
                }
            }
        } catch (RuntimeException e) {
            return "unknown (" + e.getClass().getSimpleName() + ")";
        }
        return "unknown";
    }

    @Override
    public void close() {
        store.recordInto(null);
        try {
            redis.close();
        } finally {
            cluster.close();
        }
    }
}
