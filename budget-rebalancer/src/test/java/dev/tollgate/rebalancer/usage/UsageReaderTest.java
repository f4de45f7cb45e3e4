package dev.tollgate.rebalancer.usage;

import dev.tollgate.rebalancer.budget.BudgetKey;
import dev.tollgate.store.read.BucketShape;
import dev.tollgate.store.read.CounterReads;
import dev.tollgate.store.read.LogCount;
import dev.tollgate.store.read.TokenLevel;
import dev.tollgate.store.read.WindowCount;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.function.BiFunction;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reader's merge of shards handed over as they arrive, on the store's threads. The store is a stand-in
 * for the read port that hands over given shards (a unit test of the merge; {@code RebalancerIT} reads
 * real Redis Clusters).
 */
class UsageReaderTest {

    private static final long WINDOW = 1_727_712_000L;

    /** A region's store that hands over its shards, one call at a time, from a thread of its own. */
    private static CounterReads region(List<Map<String, String>> shards) {
        return new ShardStore((window, handOver) -> CompletableFuture.supplyAsync(() -> {
            long fields = 0;
            for (Map<String, String> shard : shards) {
                handOver.accept(shard);
                fields += shard.size();
            }
            return fields;
        }));
    }

    @Test
    void mergesEveryRegionsShardsPerKeyAsTheyArrive() {
        // ~2,000 keys over 8 shards in each of three regions, handed over at once from three threads
        List<List<Map<String, String>>> regions = new ArrayList<>();
        Map<BudgetKey, long[]> whole = new HashMap<>();
        for (int region = 0; region < 3; region++) {
            List<Map<String, String>> shards = new ArrayList<>();
            for (int shard = 0; shard < 8; shard++) {
                shards.add(new HashMap<>());
            }
            for (int key = region; key < 2_000; key++) {
                long cost = 1 + key % 7 + region;
                shards.get(key % 8).put("rule-" + key % 4 + ":acct_" + key, Long.toString(cost));
                whole.computeIfAbsent(new BudgetKey("rule-" + key % 4, "acct_" + key), k -> new long[3])[region] = cost;
            }
            regions.add(shards);
        }
        UsageReader reader = new UsageReader(List.of(new RegionEndpoint("ap-south", region(regions.get(0))),
                new RegionEndpoint("eu-west", region(regions.get(1))), new RegionEndpoint("us-east", region(regions.get(2)))),
                Duration.ofSeconds(30));

        WindowUsage read = reader.read(WINDOW);

        assertThat(read.reachable()).containsExactly(true, true, true);
        assertThat(read.fields()).isEqualTo(2_000 + 1_999 + 1_998);
        assertThat(read.byKey()).hasSize(whole.size());
        whole.forEach((key, counts) -> assertThat(read.byKey().get(key)).as(key.toString()).containsExactly(counts));
    }

    @Test
    void skipsFieldsNoPodWrites() {
        Map<String, String> shard = Map.of("rule-a:acct_1", "5", "no-colon", "3", "rule-a:acct_2", "x", "rule-a:acct_3", "0",
                ":acct_4", "2", "rule-a:", "2");
        UsageReader reader = new UsageReader(List.of(new RegionEndpoint("eu-west", region(List.of(shard)))), Duration.ofSeconds(30));

        WindowUsage read = reader.read(WINDOW);

        assertThat(read.byKey()).containsOnlyKeys(new BudgetKey("rule-a", "acct_1"));
        assertThat(read.fields()).isEqualTo(6);
    }

    @Test
    void dropsWhatARegionHandedOverBeforeItsReadFailed() {
        Map<String, String> good = Map.of("rule-a:shared", "10", "rule-a:only-good", "4");
        CounterReads failing = new ShardStore((window, handOver) -> CompletableFuture.supplyAsync(() -> {
            // one shard handed over, then the next one fails: the region is not read
            handOver.accept(Map.of("rule-a:shared", "90", "rule-a:only-failed", "7"));
            throw new IllegalStateException("shard 2 of 256: connection reset");
        }));
        UsageReader reader = new UsageReader(List.of(new RegionEndpoint("eu-west", region(List.of(good))),
                new RegionEndpoint("us-east", failing)), Duration.ofSeconds(30));

        WindowUsage read = reader.read(WINDOW);

        assertThat(read.reachable()).containsExactly(true, false);
        assertThat(read.unreachable()).isEqualTo(1);
        // the failed region's counts are gone, and so is the key only it had
        assertThat(read.byKey()).containsOnlyKeys(new BudgetKey("rule-a", "shared"), new BudgetKey("rule-a", "only-good"));
        assertThat(read.byKey().get(new BudgetKey("rule-a", "shared"))).containsExactly(10, 0);
    }

    @Test
    void ignoresWhatARegionHandsOverAfterTheDeadline() throws Exception {
        CountDownLatch deadlinePassed = new CountDownLatch(1);
        CompletableFuture<Void> lateShardDone = new CompletableFuture<>();
        CounterReads slow = new ShardStore((window, handOver) -> {
            CompletableFuture<Long> reply = new CompletableFuture<>();
            Thread late = new Thread(() -> {
                try {
                    handOver.accept(Map.of("rule-a:shared", "90"));
                    deadlinePassed.await();
                    // the reader has moved on: this must not reach the map it planned with
                    handOver.accept(Map.of("rule-a:late", "5", "rule-a:shared", "1"));
                    reply.complete(3L);
                    lateShardDone.complete(null);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            late.start();
            return reply;
        });
        UsageReader reader = new UsageReader(List.of(new RegionEndpoint("eu-west", region(List.of(Map.of("rule-a:shared", "10")))),
                new RegionEndpoint("us-east", slow)), Duration.ofMillis(300));

        WindowUsage read = reader.read(WINDOW);
        deadlinePassed.countDown();
        lateShardDone.get();

        assertThat(read.reachable()).containsExactly(true, false);
        assertThat(read.byKey()).containsOnlyKeys(new BudgetKey("rule-a", "shared"));
        assertThat(read.byKey().get(new BudgetKey("rule-a", "shared"))).containsExactly(10, 0);
    }

    /** The read port with only the usage window: the reader calls nothing else. */
    private record ShardStore(BiFunction<Long, Consumer<Map<String, String>>, CompletableFuture<Long>> window) implements CounterReads {

        @Override
        public CompletableFuture<Long> usageWindow(long windowStart, Consumer<Map<String, String>> shards) {
            return window.apply(windowStart, shards);
        }

        @Override
        public CompletableFuture<Long> clockMs() {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<TokenLevel> tokenLevel(String key, String ruleId, BucketShape bucket, long nowMs) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<LogCount> logCount(String key, String ruleId, long windowMs, long nowMs) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<WindowCount> windowCount(String key, String ruleId, long windowMs, long nowMs) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Long> admitted(String ruleId, String key, long windowStart) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Long> shadowDenied(String ruleId, long windowStart) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Long> denied(String ruleId, long version, boolean shadow, long windowStart) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Map<String, String>> checks(String ruleId, long windowStart) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<dev.tollgate.store.read.FleetHotKeys> hotKeys(String region) {
            throw new UnsupportedOperationException();
        }
    }
}
