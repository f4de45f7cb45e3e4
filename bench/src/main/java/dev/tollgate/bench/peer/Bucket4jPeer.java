package dev.tollgate.bench.peer;

import dev.tollgate.bench.load.Answer;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.AsyncBucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.AsyncProxyManager;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.github.bucket4j.redis.lettuce.RedisApi;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Bucket4j's Lettuce backend as its documentation sets it up: compare-and-swap (GET the state, compute
 * the new one in the client, EVAL a CAS script; on a lost race, again), expiry after write, and the async
 * API. Its CAS retries are unbounded by default, so each check gets Bucket4j's own request timeout,
 * which also ends the retry loop; those checks fail and are counted as timeouts. Every GET and EVAL
 * goes through a counting {@link RedisApi}.
 */
public final class Bucket4jPeer implements Peer {

    /** Bounds one check including all its CAS retries (a hot key can otherwise retry for seconds). */
    public static final Duration REQUEST_TIMEOUT = Duration.ofMillis(500);

    private final AsyncProxyManager<String> buckets;
    private final BucketConfiguration configuration;
    private final Map<String, AsyncBucketProxy> proxies = new ConcurrentHashMap<>();
    private final LongAdder calls = new LongAdder();

    public Bucket4jPeer(RedisAdvancedClusterAsyncCommands<String, byte[]> redis, int ratePerS, int burst) {
        RedisApi<String> counted = counting(redis, calls);
        this.buckets = new Bucket4jLettuce.LettuceBasedProxyManagerBuilder<>(counted)
                .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10)))
                .requestTimeout(REQUEST_TIMEOUT)
                .build()
                .asAsync();
        this.configuration = BucketConfiguration.builder()
                .addLimit(limit -> limit.capacity(burst).refillGreedy(ratePerS, Duration.ofSeconds(1)))
                .build();
    }

    /**
     * Generic on purpose: Bucket4j hands its keys over as an {@code Object[]} typed {@code K[]}, so a
     * {@code RedisApi<String>} written with {@code String[]} would fail its own bridge cast.
     */
    private static <K> RedisApi<K> counting(RedisAdvancedClusterAsyncCommands<K, byte[]> redis, LongAdder calls) {
        return new RedisApi<>() {
            @Override
            public <V> RedisFuture<V> eval(String script, ScriptOutputType type, K[] keys, byte[][] params) {
                calls.increment();
                return redis.eval(script, type, keys, params);
            }

            @Override
            public RedisFuture<byte[]> get(K key) {
                calls.increment();
                return redis.get(key);
            }

            @Override
            public RedisFuture<?> delete(K key) {
                calls.increment();
                return redis.del(key);
            }
        };
    }

    @Override
    public String name() {
        return "Bucket4j Lettuce (CAS)";
    }

    @Override
    public CompletableFuture<Answer> acquire(String key) {
        AsyncBucketProxy bucket = proxies.computeIfAbsent(key,
                k -> buckets.builder().build("b4j:{" + k + "}", () -> CompletableFuture.completedFuture(configuration)));
        return bucket.tryConsume(1).thenApply(consumed -> consumed ? Answer.ALLOWED : Answer.DENIED);
    }

    @Override
    public long storeCalls() {
        return calls.sum();
    }
}
