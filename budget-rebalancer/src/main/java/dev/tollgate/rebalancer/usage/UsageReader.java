package dev.tollgate.rebalancer.usage;

import dev.tollgate.rebalancer.budget.BudgetKey;
import dev.tollgate.store.read.UsageWindow;
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
import java.util.function.Consumer;

/**
 * Reads one usage window from every region's Redis Cluster through the counter store's read port: all
 * of a region's shards in flight at once, every region in parallel. A region counts as read only when
 * every shard answered in time: a shard missing would make its keys look idle there and hand their share
 * to the other regions. Shards are merged per key as they arrive: at 1,000,000 keys the read holds one
 * map of counts, never three regions' windows of text before merging them.
 */
public final class UsageReader {

    private static final Logger log = LoggerFactory.getLogger(UsageReader.class);

    private final List<RegionEndpoint> regions;
    private final Duration deadline;
    /** Per region, whether the last read failed: an outage is logged when it starts and ends, not every cycle. */
    private final boolean[] failing;
    /** Keys the last read found: the next map is sized for as many, not grown through a dozen rehashes. */
    private int lastKeys;

    public UsageReader(List<RegionEndpoint> regions, Duration deadline) {
        this.regions = List.copyOf(regions);
        this.deadline = deadline;
        this.failing = new boolean[regions.size()];
    }

    public List<String> regionNames() {
        return regions.stream().map(RegionEndpoint::name).toList();
    }

    public WindowUsage read(long windowStart) {
        int n = regions.size();
        Merge merge = new Merge(n, lastKeys);
        List<CompletableFuture<Long>> replies = new ArrayList<>(n);
        for (int region = 0; region < n; region++) {
            int index = region;
            replies.add(send(regions.get(region), windowStart, shard -> merge.add(index, shard)));
        }
        long until = System.nanoTime() + deadline.toNanos();
        boolean[] reachable = new boolean[n];
        long fields = 0;
        for (int region = 0; region < n; region++) {
            Long read = await(region, replies.get(region), until);
            if (read == null) {
                failing[region] = true;
                continue;
            }
            if (failing[region]) {
                failing[region] = false;
                log.info("usage of region {} is read again", regions.get(region).name());
            }
            reachable[region] = true;
            fields += read;
        }
        Map<BudgetKey, long[]> byKey = merge.close(reachable);
        lastKeys = byKey.size();
        return new WindowUsage(windowStart, byKey, reachable, fields);
    }

    private static CompletableFuture<Long> send(RegionEndpoint region, long windowStart, Consumer<Map<String, String>> shards) {
        try {
            return region.store().usageWindow(windowStart, shards);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private Long await(int region, CompletableFuture<Long> reply, long until) {
        try {
            return reply.get(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            unreadable(region, cause.toString());
            return null;
        }
    }

    private void unreadable(int region, String why) {
        String name = regions.get(region).name();
        if (failing[region]) {
            log.debug("usage of region {} still not read: {}", name, why);
        } else {
            log.warn("usage of region {} not read ({}); its shares stay as they are until it is", name, why);
        }
    }

    /**
     * Every region's usage merged per key as its shards arrive, on the store's threads (one region's shards
     * one at a time, regions at once: hence the lock). A region's reply that fails or comes too late may
     * have handed over part of its shards: its counts are taken out again, and what it hands over once the
     * read is closed is dropped, so the cycle plans over a map no one writes to any more.
     */
    private static final class Merge {

        private final int regions;
        private final Map<BudgetKey, long[]> byKey;
        /** One String per rule id, not one per field: a million keys share a handful of rules. */
        private final Map<String, String> ruleIds = new HashMap<>();
        private boolean closed;

        Merge(int regions, int expectedKeys) {
            this.regions = regions;
            // sized for the keys the last read found, not grown through a dozen rehashes
            this.byKey = new HashMap<>(Math.max(16, expectedKeys + expectedKeys / 3));
        }

        /** One shard of one region: the lock is taken once a shard, not once a field. */
        synchronized void add(int region, Map<String, String> shard) {
            if (closed) {
                return;
            }
            UsageWindow.forEach(shard, (ruleId, key, cost) -> {
                String rule = ruleIds.computeIfAbsent(ruleId, id -> id);
                byKey.computeIfAbsent(new BudgetKey(rule, key), k -> new long[regions])[region] += cost;
            });
        }

        /** Ends the read: drops the counts of every region not read whole, and the keys only they had. */
        synchronized Map<BudgetKey, long[]> close(boolean[] reachable) {
            closed = true;
            boolean all = true;
            for (boolean region : reachable) {
                all &= region;
            }
            if (!all) {
                byKey.values().removeIf(counts -> {
                    boolean any = false;
                    for (int region = 0; region < counts.length; region++) {
                        if (!reachable[region]) {
                            counts[region] = 0;
                        }
                        any |= counts[region] > 0;
                    }
                    return !any;
                });
            }
            return byKey;
        }
    }
}
