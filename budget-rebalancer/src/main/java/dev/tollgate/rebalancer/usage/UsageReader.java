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
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Reads one usage window from every region's Redis Cluster through the counter store's read port: all
 * of a region's shards in flight at once, every region in parallel. A region counts as read only when
 * every shard answered in time: a shard missing would make its keys look idle there and hand their share
 * to the other regions. Shards are merged per key as they arrive: at 1,000,000 keys the read holds one
 * map of counts and the shards not merged yet (a backlog only while merging is slower than the replies),
 * not three regions' whole windows of text until the last shard is in.
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
            replies.add(send(regions.get(region), windowStart, shard -> merge.arrived(index, shard)));
        }
        long until = System.nanoTime() + deadline.toNanos();
        merge.drainUntil(CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new)), until);
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
     * Every region's usage merged per key as its shards arrive. The store's threads only queue a shard; the
     * cycle's thread parses and merges it, so Redis replies are decoded on the I/O threads while the last
     * shards are merged, and no I/O thread waits on a lock. A region's reply that fails or comes too late may
     * have handed over part of its shards: its counts are taken out again, and what it hands over once the
     * read is closed is not queued.
     */
    private static final class Merge {

        private record Shard(int region, Map<String, String> fields) {
        }

        private final int regions;
        private final Map<BudgetKey, long[]> byKey;
        private final BlockingQueue<Shard> arrived = new LinkedBlockingQueue<>();
        /** One String per rule id, not one per field: a million keys share a handful of rules. */
        private final Map<String, String> ruleIds = new HashMap<>();
        private volatile boolean closed;

        Merge(int regions, int expectedKeys) {
            this.regions = regions;
            // sized for the keys the last read found, not grown through a dozen rehashes
            this.byKey = new HashMap<>(Math.max(16, expectedKeys + expectedKeys / 3));
        }

        /** On a store thread: one shard of one region read. */
        void arrived(int region, Map<String, String> fields) {
            if (!closed) {
                arrived.add(new Shard(region, fields));
            }
        }

        /**
         * Merges shards as they arrive until every reply is in (each region's shards are all queued before
         * its reply completes) or the deadline passes.
         */
        void drainUntil(CompletableFuture<Void> replies, long until) {
            try {
                while (true) {
                    Shard shard = arrived.poll(Math.min(10_000_000L, Math.max(0, until - System.nanoTime())), TimeUnit.NANOSECONDS);
                    if (shard != null) {
                        merge(shard);
                    } else if ((replies.isDone() && arrived.isEmpty()) || System.nanoTime() - until >= 0) {
                        return;
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        private void merge(Shard shard) {
            UsageWindow.forEach(shard.fields(), (ruleId, key, cost) -> {
                String rule = ruleIds.computeIfAbsent(ruleId, id -> id);
                byKey.computeIfAbsent(new BudgetKey(rule, key), k -> new long[regions])[shard.region()] += cost;
            });
        }

        /**
         * Ends the read: merges what the regions read whole queued last, then drops the counts of every
         * region not read whole, and the keys only they had.
         */
        Map<BudgetKey, long[]> close(boolean[] reachable) {
            closed = true;
            for (Shard shard = arrived.poll(); shard != null; shard = arrived.poll()) {
                if (reachable[shard.region()]) {
                    merge(shard);
                }
            }
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
