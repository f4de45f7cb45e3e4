package dev.tollgate.store.spring;

import dev.tollgate.store.key.RedisKeys;
import dev.tollgate.store.BucketLevel;
import dev.tollgate.store.key.UsageKeys;
import dev.tollgate.store.read.BucketShape;
import dev.tollgate.store.read.CounterReads;
import dev.tollgate.store.read.FleetHotKeys;
import dev.tollgate.store.read.LogCount;
import dev.tollgate.store.read.PodHotKeys;
import dev.tollgate.store.read.TokenLevel;
import dev.tollgate.store.read.WindowCount;
import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * {@link CounterReads} over Spring Data Redis: plain reads (TIME, HGETALL, ZCOUNT, GET, HGET) on the
 * connection factory Spring Boot configures from {@code spring.data.redis.*}, or one built the same way.
 * Reads are sent at once and pipelined on the factory's shared connection; each has a deadline of its
 * own. The connection is opened by the first read, on a thread of its own that no deadline interrupts:
 * Spring Data opens it blocking (slot map, then handshakes), which on a loaded machine takes longer
 * than one read may wait, and a connect cut off at every read's deadline would never finish. A service
 * whose Redis is down starts and serves everything else; its reads fail until a later one connects.
 */
public final class SpringDataCounterReads implements CounterReads {

    private static final String TOKENS = "tokens_milli";
    private static final String TIMESTAMP = "ts_ms";

    private final ReactiveRedisConnectionFactory factory;
    private final ReactiveStringRedisTemplate redis;
    private final Duration timeout;
    /** The connect in flight or done; replaced by a new attempt once it has failed. */
    private final AtomicReference<CompletableFuture<Void>> connection = new AtomicReference<>();

    /** @param timeout how long one read may take, waiting for the connection included */
    public SpringDataCounterReads(ReactiveRedisConnectionFactory factory, Duration timeout) {
        this.factory = factory;
        this.redis = new ReactiveStringRedisTemplate(factory);
        this.timeout = timeout;
    }

    @Override
    public CompletableFuture<Long> clockMs() {
        return send(() -> redis.execute(connection -> connection.serverCommands().time()).next());
    }

    @Override
    public CompletableFuture<TokenLevel> tokenLevel(String key, String ruleId, BucketShape bucket, long nowMs) {
        String redisKey = RedisKeys.limit(key, ruleId);
        // the whole hash in one read: the level and its time must come from the same script call
        return send(() -> redis.<String, String>opsForHash().entries(redisKey).collectMap(Map.Entry::getKey, Map.Entry::getValue))
                .thenApply(fields -> level(redisKey, fields, bucket, nowMs));
    }

    static TokenLevel level(String redisKey, Map<String, String> fields, BucketShape bucket, long nowMs) {
        Long milli = number(fields.get(TOKENS));
        Long ts = number(fields.get(TIMESTAMP));
        BucketLevel level = BucketLevel.at(nowMs, milli, ts, bucket.refillMilli(), bucket.periodMs(), bucket.burstMilli());
        return new TokenLevel(redisKey, level.milli(), bucket.burstMilli(), milli != null && ts != null);
    }

    @Override
    public CompletableFuture<LogCount> logCount(String key, String ruleId, long windowMs, long nowMs) {
        String redisKey = RedisKeys.log(key, ruleId);
        // scored in ms; the script trims everything at or before now - window
        Range<Double> inside = Range.rightUnbounded(Range.Bound.exclusive((double) (nowMs - windowMs)));
        return send(() -> redis.opsForZSet().count(redisKey, inside).defaultIfEmpty(0L))
                .thenApply(count -> new LogCount(redisKey, count));
    }

    @Override
    public CompletableFuture<WindowCount> windowCount(String key, String ruleId, long windowMs, long nowMs) {
        String window = RedisKeys.windowName(RedisKeys.windowStart(nowMs, windowMs), windowMs);
        String redisKey = RedisKeys.window(key, ruleId, window);
        return send(() -> redis.opsForValue().get(redisKey).defaultIfEmpty("0"))
                .thenApply(count -> new WindowCount(redisKey, window, Long.parseLong(count)));
    }

    @Override
    public CompletableFuture<Long> admitted(String ruleId, String key, long windowStart) {
        String hash = UsageKeys.windowOf(ruleId, key, windowStart);
        if (hash == null) {
            return CompletableFuture.completedFuture(0L);
        }
        return send(() -> redis.<String, String>opsForHash().get(hash, UsageKeys.field(ruleId, key)).defaultIfEmpty("0"))
                .thenApply(Long::parseLong);
    }

    @Override
    public CompletableFuture<Long> shadowDenied(String ruleId, long windowStart) {
        return send(() -> redis.<String, String>opsForHash().get(UsageKeys.shadowDenies(windowStart), ruleId).defaultIfEmpty("0"))
                .thenApply(Long::parseLong);
    }

    @Override
    public CompletableFuture<Long> denied(String ruleId, long version, boolean shadow, long windowStart) {
        String field = UsageKeys.denialField(ruleId, version, shadow);
        if (field == null) {
            return CompletableFuture.completedFuture(0L);
        }
        return send(() -> redis.<String, String>opsForHash().get(UsageKeys.versionDenies(windowStart), field).defaultIfEmpty("0"))
                .thenApply(Long::parseLong);
    }

    @Override
    public CompletableFuture<Long> usageWindow(long windowStart, Consumer<Map<String, String>> shards) {
        // every shard at once (Lettuce pipelines them per node), each handed over as it arrives, not collected:
        // flatMap signals one shard at a time, in whatever order they answer; one that fails fails the window
        return send(() -> Flux.fromIterable(UsageKeys.windows(windowStart))
                .flatMap(SpringDataCounterReads.this::shard, UsageKeys.SHARDS)
                .map(hash -> {
                    shards.accept(hash);
                    return (long) hash.size();
                })
                .reduce(0L, Long::sum));
    }

    @Override
    public CompletableFuture<Map<String, String>> checks(String ruleId, long windowStart) {
        return send(() -> shard(UsageKeys.checks(ruleId, windowStart)));
    }

    @Override
    public CompletableFuture<FleetHotKeys> hotKeys(String region) {
        String registry = RedisKeys.podRegistry(region);
        return send(() -> redis.opsForZSet().range(registry, Range.closed(0L, (long) FleetHotKeys.MAX_PODS - 1)).collectList()
                .flatMap(pods -> pods.isEmpty()
                        ? Mono.just(new FleetHotKeys(pods, List.of()))
                        : redis.opsForValue().multiGet(pods.stream().map(pod -> RedisKeys.podHotKeys(region, pod)).toList())
                                .map(values -> reports(pods, values))));
    }

    private static FleetHotKeys reports(List<String> pods, List<String> values) {
        List<PodHotKeys> reports = new ArrayList<>();
        for (int i = 0; i < pods.size() && i < values.size(); i++) {
            PodHotKeys.decode(pods.get(i), values.get(i)).ifPresent(reports::add);
        }
        return new FleetHotKeys(pods, reports);
    }

    /**
     * One shard's hash, its fields decoded straight from the reply's buffers into the map handed over. At
     * 1,000,000 keys a window is 1,000,000 fields a region: the template's way (each field through its key
     * and value serializers, a byte[] copied out of each buffer, an entry made twice) cost more than the
     * rest of the read together.
     */
    private Mono<Map<String, String>> shard(String name) {
        ByteBuffer key = ByteBuffer.wrap(name.getBytes(StandardCharsets.UTF_8));
        return redis.execute(connection -> connection.hashCommands().hGetAll(key))
                .collect(HashMap::new, (hash, field) -> hash.put(text(field.getKey()), text(field.getValue())));
    }

    private static String text(ByteBuffer bytes) {
        if (bytes.hasArray()) {
            return new String(bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.remaining(), StandardCharsets.UTF_8);
        }
        return StandardCharsets.UTF_8.decode(bytes.duplicate()).toString();
    }

    private <T> CompletableFuture<T> send(Supplier<Mono<T>> read) {
        // the deadline ends the wait, never the read or the connect: Lettuce's command timeout bounds the one,
        // the connect timeouts the other
        return connected().thenCompose(connected -> read.get().toFuture()).orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The shared connection, opened on a thread of its own the first time and after a failed attempt. */
    private CompletableFuture<Void> connected() {
        CompletableFuture<Void> current = connection.get();
        if (current != null && !current.isCompletedExceptionally()) {
            return current;
        }
        CompletableFuture<Void> attempt = new CompletableFuture<>();
        if (!connection.compareAndSet(current, attempt)) {
            return connection.get();
        }
        Thread connector = new Thread(() -> {
            try {
                // with a shared native connection (Spring's default) this opens it; closing the wrapper keeps it
                factory.getReactiveConnection().close();
                attempt.complete(null);
            } catch (RuntimeException e) {
                attempt.completeExceptionally(e);
            }
        }, "counter-reads-connect");
        connector.setDaemon(true);
        connector.start();
        return attempt;
    }

    private static Long number(String value) {
        return value == null ? null : Long.valueOf(value);
    }
}
