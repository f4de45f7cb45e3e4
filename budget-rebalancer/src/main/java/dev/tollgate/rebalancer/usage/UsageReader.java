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

/**
 * Reads one usage window from every region's Redis Cluster through the counter store's read port: all
 * of a region's shards in flight at once, every region in parallel. A region counts as read only when
 * every shard answered in time: a shard missing would make its keys look idle there and hand their share
 * to the other regions.
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
        List<CompletableFuture<UsageWindow>> replies = new ArrayList<>(n);
        for (RegionEndpoint region : regions) {
            replies.add(send(region, windowStart));
        }
        long until = System.nanoTime() + deadline.toNanos();
        boolean[] reachable = new boolean[n];
        Map<BudgetKey, long[]> byKey = new HashMap<>(Math.max(16, lastKeys + lastKeys / 3));
        Map<String, String> ruleIds = new HashMap<>();
        long fields = 0;
        for (int region = 0; region < n; region++) {
            UsageWindow window = await(region, replies.get(region), until);
            if (window == null) {
                failing[region] = true;
                continue;
            }
            if (failing[region]) {
                failing[region] = false;
                log.info("usage of region {} is read again", regions.get(region).name());
            }
            reachable[region] = true;
            fields += window.fields();
            int index = region;
            window.forEach((ruleId, key, cost) -> {
                // one String per rule id, not one per field: 240,000 keys share a handful of rules
                String rule = ruleIds.computeIfAbsent(ruleId, id -> id);
                byKey.computeIfAbsent(new BudgetKey(rule, key), k -> new long[n])[index] += cost;
            });
        }
        lastKeys = byKey.size();
        return new WindowUsage(windowStart, byKey, reachable, fields);
    }

    private static CompletableFuture<UsageWindow> send(RegionEndpoint region, long windowStart) {
        try {
            return region.store().usageWindow(windowStart);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private UsageWindow await(int region, CompletableFuture<UsageWindow> reply, long until) {
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

}
