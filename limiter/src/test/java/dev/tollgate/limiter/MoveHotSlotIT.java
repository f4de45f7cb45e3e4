package dev.tollgate.limiter;

import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.common.rule.Limit;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.limiter.rules.StaticRuleBook;
import dev.tollgate.store.CounterStore;
import dev.tollgate.store.LuaScript;
import dev.tollgate.store.RedisCounterStore;
import dev.tollgate.store.RedisStoreSettings;
import dev.tollgate.store.key.RedisKeys;
import dev.tollgate.testsupport.redis.Node;
import dev.tollgate.testsupport.redis.RedisCluster;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The TollgateHotSlot runbook's command, deploy/scripts/move-hot-slot.sh, on a real cluster with checks running
 * through it: a hot key's slot moves to a primary of its own and no check is lost, none is answered from a fallback,
 * and the bucket's count comes across whole (every admitted check spent exactly once, on one side of the move).
 */
class MoveHotSlotIT {

    private static final Logger log = LoggerFactory.getLogger(MoveHotSlotIT.class);

    /** Generous on a shared 2-core machine: a check answered from the fallback would hide a lost redirect. */
    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    private static final int BURST = 100_000;
    private static final Match ENTERPRISE = new Match("enterprise", null);
    /** One token an hour: over the test's seconds the bucket refills less than one token, so its level counts spends. */
    private final Rule hot = Rule.of("hot", "api", new Limit.TokenBucket(1, 3_600, BURST)).withMatch(ENTERPRISE);
    /** Shares the hot key's slot (same hash tag): a second key that must move with it, half spent. */
    private final Rule tight = Rule.of("tight", "api", new Limit.TokenBucket(1, 3_600, 3)).withMatch(ENTERPRISE);

    @Test
    void movesAHotKeysSlotToANewPrimaryWhileChecksRunAndLosesNoCheckAndNoSpend() throws Exception {
        Path script = script();
        try (RedisCluster cluster = RedisCluster.builder().start();
             RedisCounterStore store = RedisCounterStore.connect(RedisStoreSettings.of(cluster.seedUris()).withCommandTimeout(TIMEOUT))) {
            FailureLog watched = new FailureLog(store);
            Limiter limiter = Limiter.builder(new StaticRuleBook(List.of(hot, tight)), watched)
                    .settings(LimiterSettings.DEFAULTS.withDeadline(TIMEOUT.multipliedBy(3)))
                    .build();
            String key = "acct_hot";
            int slot = RedisKeys.slot(key);
            Node owner = cluster.primaryForKey(RedisKeys.hashTag(key));
            // the store was connected before the new primary existed, as a running pod's is
            Node dedicated = cluster.addEmptyPrimary();
            assertThat(check(limiter, "tight", key).allowed()).isTrue();
            assertThat(check(limiter, "tight", key).allowed()).isTrue();

            AtomicBoolean running = new AtomicBoolean(true);
            AtomicLong admitted = new AtomicLong();
            AtomicLong denied = new AtomicLong();
            AtomicLong fromFallback = new AtomicLong();
            AtomicLong notAnswered = new AtomicLong();
            AtomicLong duringMove = new AtomicLong();
            AtomicBoolean moving = new AtomicBoolean();
            ExecutorService clients = Executors.newFixedThreadPool(4);
            List<Future<?>> load = new ArrayList<>();
            for (int c = 0; c < 4; c++) {
                load.add(clients.submit(() -> {
                    while (running.get()) {
                        Outcome outcome = limiter.check(request("hot", key)).get(10, TimeUnit.SECONDS);
                        if (moving.get()) {
                            duringMove.incrementAndGet();
                        }
                        if (outcome.answered().isEmpty()) {
                            notAnswered.incrementAndGet();
                            continue;
                        }
                        CheckResponse response = outcome.answered().get();
                        if (response.entries().get(0).fallback() != null) {
                            fromFallback.incrementAndGet();
                        } else if (response.allowed()) {
                            admitted.incrementAndGet();
                        } else {
                            denied.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            Thread.sleep(500);
            moving.set(true);
            long moveStart = System.nanoTime();
            Run move = run(script, owner.hostAndPort(), Integer.toString(slot), dedicated.hostAndPort());
            moving.set(false);
            long moveMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - moveStart);
            Thread.sleep(500);
            running.set(false);
            for (Future<?> f : load) {
                f.get(20, TimeUnit.SECONDS);
            }
            clients.shutdown();

            log.info("slot {} moved in {} ms with {} checks answered meanwhile; {} admitted in all, {} from a fallback, {} unanswered",
                    slot, moveMs, duringMove.get(), admitted.get(), fromFallback.get(), notAnswered.get());
            assertThat(move.exit()).as(move.output()).isZero();
            assertThat(move.output()).contains("moved slot " + slot + " (2 keys)");
            assertThat(cluster.primaryForKey(RedisKeys.hashTag(key)).port()).isEqualTo(dedicated.port());
            assertThat(duringMove.get()).as("checks answered while the slot moved").isPositive();
            assertThat(notAnswered.get()).isZero();
            assertThat(fromFallback.get()).as("checks answered from a fallback bucket; store failures " + watched.failures).isZero();
            assertThat(denied.get()).isZero();
            // the bucket's level is the spends: what the last check leaves is the burst less every admitted check, itself included
            CheckResponse last = check(limiter, "hot", key);
            assertThat(last.entries().get(0).fallback()).isNull();
            assertThat(last.entries().get(0).remaining()).isEqualTo(BURST - admitted.get() - 1);
            // the second key of the slot came across half spent, and is still enforced there
            CheckResponse third = check(limiter, "tight", key);
            assertThat(third.allowed()).isTrue();
            assertThat(third.entries().get(0).remaining()).isZero();
            CheckResponse fourth = check(limiter, "tight", key);
            assertThat(fourth.allowed()).isFalse();
            assertThat(fourth.entries().get(0).fallback()).isNull();
            // and the client's slot map follows, so checks go straight to the new primary rather than by MOVED
            await().atMost(Duration.ofSeconds(15)).untilAsserted(() ->
                    assertThat(store.shardOf(RedisKeys.hashTag(key))).isEqualTo(dedicated.hostAndPort()));
        }
    }

    @Test
    void refusesBadArgumentsAndAnUnknownTargetAndLeavesASlotThatIsAlreadyThere() throws Exception {
        Path script = script();
        RedisCluster cluster = RedisCluster.shared();
        Node any = cluster.primaries().get(0);
        String key = "acct_already";
        int slot = RedisKeys.slot(key);
        Node owner = cluster.primaryForKey(RedisKeys.hashTag(key));

        Run noSlot = run(script, any.hostAndPort(), "16384", owner.hostAndPort());
        assertThat(noSlot.exit()).isEqualTo(2);
        assertThat(noSlot.output()).contains("slot must be 0-16383");
        Run missing = run(script, any.hostAndPort(), Integer.toString(slot));
        assertThat(missing.exit()).isEqualTo(2);
        assertThat(missing.output()).contains("usage:");
        Run unknown = run(script, any.hostAndPort(), Integer.toString(slot), "127.0.0.1:1");
        assertThat(unknown.exit()).isEqualTo(3);
        assertThat(unknown.output()).contains("add it first");
        Run already = run(script, any.hostAndPort(), Integer.toString(slot), owner.hostAndPort());
        assertThat(already.exit()).isZero();
        assertThat(already.output()).contains("already on " + owner.hostAndPort());
        assertThat(cluster.primaryForKey(RedisKeys.hashTag(key))).isEqualTo(owner);
    }

    /** The store, noting each failed call by its error: what the assertion on fallbacks shows when it fails. */
    private static final class FailureLog implements CounterStore {

        final Map<String, AtomicLong> failures = new ConcurrentHashMap<>();
        private final CounterStore store;

        FailureLog(CounterStore store) {
            this.store = store;
        }

        @Override
        public CompletableFuture<List<Long>> run(LuaScript script, List<String> keys, List<String> args) {
            return store.run(script, keys, args).whenComplete((reply, error) -> {
                if (error != null) {
                    failures.computeIfAbsent(String.valueOf(error), k -> new AtomicLong()).incrementAndGet();
                }
            });
        }

        @Override
        public String shardOf(String redisKey) {
            return store.shardOf(redisKey);
        }

        @Override
        public List<String> shards() {
            return store.shards();
        }
    }

    private static CheckRequest request(String rule, String key) {
        return new CheckRequest("api", List.of(CheckEntry.of(rule, key, 1)));
    }

    private static CheckResponse check(Limiter limiter, String rule, String key) {
        return limiter.check(request(rule, key)).join().answered().orElseThrow();
    }

    private record Run(int exit, String output) {
    }

    private static Run run(Path script, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("bash", script.toString()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not end within 60 s");
        }
        return new Run(process.exitValue(), new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    /** The script from the repository, wherever the tests run; skipped only where redis-cli, which it drives, is missing. */
    private static Path script() {
        assumeTrue(onPath("redis-cli"), "redis-cli is not on PATH");
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path script = dir.resolve("deploy/scripts/move-hot-slot.sh");
            if (Files.isRegularFile(script)) {
                return script;
            }
        }
        throw new IllegalStateException("no deploy/scripts/move-hot-slot.sh above " + Path.of("").toAbsolutePath());
    }

    private static boolean onPath(String program) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
                return true;
            }
        }
        return false;
    }
}
