package dev.tollgate.rules.usage;

import dev.tollgate.limiter.usage.UsageKeys;

import dev.tollgate.limiter.store.RedisCounterStore;
import dev.tollgate.limiter.store.StoreException;
import dev.tollgate.rules.problem.CounterStoreUnavailableException;
import io.lettuce.core.KeyValue;
import io.lettuce.core.Range;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;

import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Plain reads of the region's counter store, through the limiter's own cluster client (same slot
 * routing, same no-replay settings). It connects on first use, not at start-up: rules-service must
 * serve rules even while the region's Redis is down; only the usage endpoint answers 503 then.
 */
@Component
class CounterReader implements DisposableBean {

    private final UsageProperties.Redis settings;
    private volatile RedisCounterStore store;

    CounterReader(UsageProperties properties) {
        this.settings = properties.redis();
    }

    /** The store's clock in ms: the same TIME the scripts read, so a refill is computed as the next script would. */
    long nowMs() {
        List<String> time = await(commands().time());
        return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
    }

    RedisFuture<List<KeyValue<String, String>>> bucket(String redisKey) {
        return commands().hmget(redisKey, "tokens_milli", "ts_ms");
    }

    /** Entries of a sliding log still inside its window: scored after {@code now - window}, as the script trims. */
    RedisFuture<Long> logCount(String redisKey, long nowMs, long windowMs) {
        return commands().zcount(redisKey, Range.from(Range.Boundary.excluding(nowMs - windowMs), Range.Boundary.unbounded()));
    }

    /** Cost the region's pods admitted for one limit and key in the usage window starting at {@code windowStart} (s). */
    RedisFuture<String> admittedIn(String ruleId, String key, long windowStart) {
        String field = UsageKeys.field(ruleId, key);
        return commands().hget(UsageKeys.window(UsageKeys.shardOf(field), windowStart), field);
    }

    /** Cost the region's shadow rules would have denied for one rule in the usage window starting at {@code windowStart} (s). */
    RedisFuture<String> shadowDeniedIn(String ruleId, long windowStart) {
        return commands().hget(UsageKeys.shadowDenies(windowStart), ruleId);
    }

    RedisFuture<String> windowCount(String redisKey) {
        return commands().get(redisKey);
    }

    <T> T await(RedisFuture<T> future) {
        try {
            return future.get(settings.commandTimeout().toMillis() * 4, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw unavailable("interrupted");
        } catch (ExecutionException e) {
            throw unavailable(e.getCause() == null ? e.getMessage() : e.getCause().getMessage());
        } catch (TimeoutException e) {
            throw unavailable("no answer in time");
        }
    }

    private RedisAdvancedClusterAsyncCommands<String, String> commands() {
        try {
            return connected().connection().async();
        } catch (StoreException e) {
            // not connected (yet, or any more): the store keeps reconnecting on its own
            throw unavailable(e.getMessage());
        }
    }

    private RedisCounterStore connected() {
        RedisCounterStore current = store;
        if (current != null) {
            return current;
        }
        if (!settings.configured()) {
            throw new CounterStoreUnavailableException("No counter store is configured for this region (tollgate.usage.redis.seeds).");
        }
        synchronized (this) {
            if (store == null) {
                store = RedisCounterStore.connect(settings.settings());
            }
            return store;
        }
    }

    private static CounterStoreUnavailableException unavailable(String why) {
        return new CounterStoreUnavailableException("The region's counter store (Redis) cannot be read: " + why);
    }

    @Override
    public void destroy() {
        RedisCounterStore current = store;
        store = null;
        if (current != null) {
            current.close();
        }
    }
}
