package dev.tollgate.rebalancer.usage;

import dev.tollgate.limiter.store.RedisCounterStore;
import dev.tollgate.limiter.store.StoreException;
import dev.tollgate.limiter.usage.UsageKeys;
import dev.tollgate.rebalancer.budget.BudgetKey;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Reads one usage window from every region's Redis Cluster: {@link UsageKeys#SHARDS} HGETALLs per
 * region, all in flight at once (Lettuce pipelines them per node), every region in parallel. A region
 * counts as read only when every shard answered in time: a shard missing would make its keys look idle
 * there and hand their share to the other regions.
 */
public final class UsageReader implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(UsageReader.class);

    private final List<RegionEndpoint> regions;
    private final List<RedisCounterStore> stores;
    private final Duration deadline;
    /** Per region, whether the last read failed: an outage is logged when it starts and ends, not every cycle. */
    private final boolean[] failing;
    /** Keys the last read found: the next map is sized for as many, not grown through a dozen rehashes. */
    private int lastKeys;

    /** Connects to every region, in the background: a region down at start-up is just unreachable. */
    public UsageReader(List<RegionEndpoint> regions, Duration deadline) {
        this.regions = List.copyOf(regions);
        this.deadline = deadline;
        this.stores = new ArrayList<>(regions.size());
        this.failing = new boolean[regions.size()];
        for (RegionEndpoint region : regions) {
            stores.add(RedisCounterStore.connect(region.redis()));
        }
    }

    public List<String> regionNames() {
        return regions.stream().map(RegionEndpoint::name).toList();
    }

    public WindowUsage read(long windowStart) {
        int n = regions.size();
        List<String> names = UsageKeys.windows(windowStart);
        List<List<CompletableFuture<Map<String, String>>>> replies = new ArrayList<>(n);
        for (RedisCounterStore store : stores) {
            replies.add(send(store, names));
        }
        long until = System.nanoTime() + deadline.toNanos();
        boolean[] reachable = new boolean[n];
        Map<BudgetKey, long[]> byKey = new HashMap<>(Math.max(16, lastKeys + lastKeys / 3));
        Map<String, String> ruleIds = new HashMap<>();
        long fields = 0;
        for (int region = 0; region < n; region++) {
            List<Map<String, String>> hashes = await(region, replies.get(region), until);
            if (hashes == null) {
                failing[region] = true;
                continue;
            }
            if (failing[region]) {
                failing[region] = false;
                log.info("usage of region {} is read again", regions.get(region).name());
            }
            reachable[region] = true;
            for (Map<String, String> hash : hashes) {
                for (Map.Entry<String, String> field : hash.entrySet()) {
                    fields++;
                    add(byKey, ruleIds, region, n, field.getKey(), field.getValue());
                }
            }
        }
        lastKeys = byKey.size();
        return new WindowUsage(windowStart, byKey, reachable, fields);
    }

    private static List<CompletableFuture<Map<String, String>>> send(RedisCounterStore store, List<String> names) {
        RedisAdvancedClusterAsyncCommands<String, String> commands;
        try {
            commands = store.connection().async();
        } catch (StoreException e) {
            return null;
        }
        List<CompletableFuture<Map<String, String>>> replies = new ArrayList<>(names.size());
        for (String name : names) {
            replies.add(commands.hgetall(name).toCompletableFuture());
        }
        return replies;
    }

    private List<Map<String, String>> await(int region, List<CompletableFuture<Map<String, String>>> replies, long until) {
        if (replies == null) {
            unreadable(region, "not connected to its Redis Cluster");
            return null;
        }
        try {
            CompletableFuture.allOf(replies.toArray(CompletableFuture<?>[]::new))
                    .get(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            unreadable(region, cause.toString());
            return null;
        }
        List<Map<String, String>> hashes = new ArrayList<>(replies.size());
        for (CompletableFuture<Map<String, String>> reply : replies) {
            hashes.add(reply.join());
        }
        return hashes;
    }

    private void unreadable(int region, String why) {
        String name = regions.get(region).name();
        if (failing[region]) {
            log.debug("usage of region {} still not read: {}", name, why);
        } else {
            log.warn("usage of region {} not read ({}); its shares stay as they are until it is", name, why);
        }
    }

    private static void add(Map<BudgetKey, long[]> byKey, Map<String, String> ruleIds, int region, int regions,
                            String field, String value) {
        UsageKeys.Field parsed = UsageKeys.Field.parse(field);
        if (parsed == null) {
            return;
        }
        long cost;
        try {
            cost = Long.parseLong(value);
        } catch (NumberFormatException e) {
            return;
        }
        if (cost <= 0) {
            return;
        }
        // one String per rule id, not one per field: 240,000 keys share a handful of rules
        String ruleId = ruleIds.computeIfAbsent(parsed.ruleId(), id -> id);
        byKey.computeIfAbsent(new BudgetKey(ruleId, parsed.key()), k -> new long[regions])[region] += cost;
    }

    @Override
    public void close() {
        for (RedisCounterStore store : stores) {
            store.close();
        }
    }
}
