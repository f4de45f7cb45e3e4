package dev.tollgate.bench.scale;

import dev.tollgate.store.key.UsageKeys;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Writes each cycle's usage window into every region's Redis Cluster, in the layout the pods' usage
 * recorder writes and the rebalancer reads ({@link UsageKeys}: 256 hashes per window, fields
 * {@code <rule>:<key>}): what a region's whole fleet of pods would have flushed over the window, written
 * in one go ahead of it. Fields go in {@code HSET}s of {@value #FIELDS_PER_COMMAND}, all in flight at once.
 */
final class UsageWriter implements AutoCloseable {

    private static final int FIELDS_PER_COMMAND = 1_000;
    /** Past the rebalancer's read, however late: the bench writes a window before it opens. */
    private static final long EXPIRE_SECONDS = 90;

    private final Churn churn;
    private final List<RedisClusterClient> clients = new ArrayList<>();
    private final List<StatefulRedisClusterConnection<String, String>> connections = new ArrayList<>();
    /** Per shard, the keys whose field lands in it, and the fields themselves, computed once. */
    private final int[][] keysByShard;
    private final String[] fields;

    /** @param regionSeeds per region in {@link Churn#REGIONS} order, its cluster's seed URIs */
    UsageWriter(Churn churn, List<List<String>> regionSeeds) {
        this.churn = churn;
        for (List<String> seeds : regionSeeds) {
            RedisClusterClient client = RedisClusterClient.create(seeds.stream().map(RedisURI::create).toList());
            client.setDefaultTimeout(Duration.ofSeconds(30));
            clients.add(client);
            connections.add(client.connect());
        }
        fields = new String[churn.keys()];
        int[] counts = new int[UsageKeys.SHARDS];
        int[] shardOf = new int[churn.keys()];
        for (int key = 0; key < churn.keys(); key++) {
            fields[key] = UsageKeys.field(Churn.rule(key), Churn.limitKey(key));
            shardOf[key] = UsageKeys.shardOf(fields[key]);
            counts[shardOf[key]]++;
        }
        keysByShard = new int[UsageKeys.SHARDS][];
        for (int shard = 0; shard < UsageKeys.SHARDS; shard++) {
            keysByShard[shard] = new int[counts[shard]];
        }
        int[] filled = new int[UsageKeys.SHARDS];
        for (int key = 0; key < churn.keys(); key++) {
            keysByShard[shardOf[key]][filled[shardOf[key]]++] = key;
        }
    }

    /** Writes cycle {@code cycle}'s usage as window {@code windowStart} in every region; blocks until all is written. */
    void write(long windowStart, int cycle) {
        List<RedisFuture<?>> pending = new ArrayList<>();
        for (int region = 0; region < connections.size(); region++) {
            RedisAdvancedClusterAsyncCommands<String, String> redis = connections.get(region).async();
            for (int shard = 0; shard < UsageKeys.SHARDS; shard++) {
                String hash = UsageKeys.window(shard, windowStart);
                int[] keys = keysByShard[shard];
                for (int from = 0; from < keys.length; from += FIELDS_PER_COMMAND) {
                    Map<String, String> batch = new HashMap<>(Math.min(FIELDS_PER_COMMAND, keys.length - from) * 2);
                    for (int i = from; i < Math.min(keys.length, from + FIELDS_PER_COMMAND); i++) {
                        batch.put(fields[keys[i]], Long.toString(Churn.usage(keys[i], cycle)[region]));
                    }
                    pending.add(redis.hset(hash, batch));
                }
                pending.add(redis.expire(hash, EXPIRE_SECONDS));
            }
            // bound what is in flight: a region's commands at a time
            awaitAll(pending);
            pending.clear();
        }
    }

    private static void awaitAll(List<RedisFuture<?>> pending) {
        for (RedisFuture<?> future : pending) {
            try {
                future.get(60, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException("writing usage failed: " + e, e);
            }
        }
    }

    int keys() {
        return churn.keys();
    }

    @Override
    public void close() {
        connections.forEach(StatefulRedisClusterConnection::close);
        clients.forEach(RedisClusterClient::shutdown);
    }
}
