package dev.tollgate.limiter;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.common.check.EntryResult;
import dev.tollgate.common.rule.Limit;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.store.key.RedisKeys;
import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.limiter.rules.StaticRuleBook;
import dev.tollgate.store.RedisCounterStore;
import dev.tollgate.store.RedisStoreSettings;
import dev.tollgate.store.StoreException;
import dev.tollgate.testsupport.redis.Node;
import dev.tollgate.testsupport.redis.RedisCluster;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Requirement #4 on a real Redis Cluster: when a shard dies, freezes, stalls or refuses us, API rules
 * keep answering from the pod's fallback buckets, login fails closed, other shards are untouched, and
 * the pod goes global again by itself.
 */
class ShardFailureIT {

    private static final Match ENTERPRISE = new Match("enterprise", null);
    private static final Match LOGIN = new Match(null, "/login");
    /** Generous for a shared 2-core machine; the production default is 5 ms. */
    private static final Duration TIMEOUT = Duration.ofMillis(100);
    /** The design's store timeout, and the deadline check-service derives from it (five of them). */
    private static final Duration PRODUCTION_TIMEOUT = Duration.ofMillis(5);
    private static final Duration PRODUCTION_DEADLINE = PRODUCTION_TIMEOUT.multipliedBy(5);
    /**
     * For the killed primary, whose node refuses at once: nothing there waits for a timeout, and at 100 ms a
     * busy 2-core machine timed out calls to the healthy shards too (three in a row opened one's breaker).
     */
    private static final Duration KILL_TIMEOUT = Duration.ofSeconds(1);
    private static final int PODS = 50;

    private final Rule api = Rule.tokenBucket("enterprise", "api", 1_000, 2_000).withMatch(ENTERPRISE);
    private final Rule login = Rule.slidingLog("login-ip", "api", 5, 60).withMatch(LOGIN);
    /** Refills one token a day: any change in its level is a spend. */
    private final Rule ledger = Rule.of("ledger", "api", new Limit.TokenBucket(1, 86_400, 100)).withMatch(ENTERPRISE);

    @Test
    void aKilledPrimaryFailsOpenRulesOntoFallbackAndLoginClosedThenGoesGlobalAfterPromotion() throws Exception {
        try (RedisCluster cluster = RedisCluster.builder().replicas(true).nodeTimeoutMs(500).start();
             RedisCounterStore store = connect(cluster, null, KILL_TIMEOUT)) {
            LimiterMetrics metrics = new LimiterMetrics(new SimpleMeterRegistry());
            Limiter limiter = limiter(store, metrics, LimiterSettings.DEFAULTS.withDeadline(KILL_TIMEOUT.multipliedBy(3)));
            Node victim = cluster.primaries().get(0);
            String onVictim = keyOn(cluster, victim);
            String elsewhere = keyOn(cluster, cluster.primaries().get(1));
            assertThat(answeredInARow(limiter, onVictim)).isEqualTo(3);
            assertThat(answeredInARow(limiter, elsewhere)).isEqualTo(3);
            // what the healthy shard's breaker sees: a shard held up by the dying one would show it here
            CircuitBreaker healthy = limiter.breakers().forShard(store.shardOf(RedisKeys.hashTag(elsewhere)));
            List<CircuitBreaker.StateTransition> healthyTransitions = new CopyOnWriteArrayList<>();
            List<StoreException.Kind> healthyFailures = new CopyOnWriteArrayList<>();
            healthy.getEventPublisher().onStateTransition(event -> healthyTransitions.add(event.getStateTransition()));
            healthy.getEventPublisher().onError(event -> healthyFailures.add(((StoreException) event.getThrowable()).kind()));
            List<CircuitBreaker.StateTransition> dyingTransitions = new CopyOnWriteArrayList<>();
            limiter.breakers().forShard(store.shardOf(RedisKeys.hashTag(onVictim))).getEventPublisher()
                    .onStateTransition(event -> dyingTransitions.add(event.getStateTransition()));

            // a bounded load on the dying shard and on a healthy one, from four clients
            AtomicBoolean running = new AtomicBoolean(true);
            Histogram latency = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
            AtomicLong verdicts = new AtomicLong();
            AtomicLong failOpenAllowed = new AtomicLong();
            AtomicLong failClosed = new AtomicLong();
            AtomicLong otherShardFallbacks = new AtomicLong();
            AtomicLong otherShardChecks = new AtomicLong();
            ExecutorService clients = Executors.newFixedThreadPool(4);
            List<Future<?>> load = new ArrayList<>();
            for (int c = 0; c < 4; c++) {
                boolean onDyingShard = c < 3;
                load.add(clients.submit(() -> {
                    while (running.get()) {
                        long start = System.nanoTime();
                        if (onDyingShard) {
                            CheckResponse response = checkApi(limiter, onVictim);
                            if (response.allowed() && "fail_open".equals(response.entries().get(0).fallback())) {
                                failOpenAllowed.incrementAndGet();
                            }
                            if (checkLogin(limiter, onVictim) instanceof Outcome.FailedClosed) {
                                failClosed.incrementAndGet();
                            }
                        } else {
                            otherShardChecks.incrementAndGet();
                            if (checkApi(limiter, elsewhere).entries().get(0).fallback() != null) {
                                otherShardFallbacks.incrementAndGet();
                            }
                        }
                        synchronized (latency) {
                            latency.recordValue(Math.min(System.nanoTime() - start, latency.getHighestTrackableValue()));
                        }
                        verdicts.incrementAndGet();
                        Thread.sleep(1);
                    }
                    return null;
                }));
            }
            Thread.sleep(300);
            long killed = System.nanoTime();
            victim.kill();
            Node promoted = cluster.awaitPromotedReplicaFor(victim, Duration.ofSeconds(20));
            long promotedAt = System.nanoTime();
            int transitionsAtPromotion = dyingTransitions.size();
            // generous: how soon is counted below, in store calls, not in seconds
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10))
                    .until(() -> checkApi(limiter, onVictim).entries().get(0).fallback() == null);
            long globalAgainAt = System.nanoTime();
            long failedProbesAfterPromotion = dyingTransitions.subList(transitionsAtPromotion, dyingTransitions.size()).stream()
                    .filter(CircuitBreaker.StateTransition.HALF_OPEN_TO_OPEN::equals).count();
            running.set(false);
            for (Future<?> f : load) {
                f.get(10, TimeUnit.SECONDS); // rethrows anything but a verdict or a fail-closed store error
            }
            clients.shutdown();

            double outageS = (promotedAt - killed) / 1e9;
            double backAfterS = (globalAgainAt - promotedAt) / 1e9;
            System.out.printf("primary kill: promoted after %.2f s, global again %.2f s and %d failed probes after promotion; %d verdicts, "
                            + "%d fail-open allowed, %d fail-closed (503/504), %d fallbacks in %d checks on another shard (its failures: %s); latency p50 %.2f ms, p99 %.2f ms, max %.2f ms%n",
                    outageS, backAfterS, failedProbesAfterPromotion, verdicts.get(), failOpenAllowed.get(), failClosed.get(), otherShardFallbacks.get(),
                    otherShardChecks.get(), healthyFailures, latency.getValueAtPercentile(50) / 1e6, latency.getValueAtPercentile(99) / 1e6, latency.getMaxValue() / 1e6);

            assertThat(promoted.port()).isNotEqualTo(victim.port());
            assertThat(failClosed.get()).as("login fails closed while the shard is down").isPositive();
            // Keys on other shards are unaffected: their breaker never opened, and a fallback there can only be its own
            // call's timeout (a stall of the whole machine longer than KILL_TIMEOUT, never seen, but not the test's to
            // rule out). A shard held up by the dead one, or told CLUSTERDOWN, would fail most of its calls, and three in
            // a row open its breaker.
            assertThat(healthyTransitions).as("the healthy shard's breaker never opened").isEmpty();
            assertThat(healthy.getMetrics().getNumberOfNotPermittedCalls()).isZero();
            assertThat(healthyFailures).as("the healthy shard's failures").allMatch(kind -> kind == StoreException.Kind.TIMEOUT);
            assertThat(otherShardFallbacks.get()).as("fallbacks on the healthy shard, each its own call's timeout")
                    .isLessThanOrEqualTo(healthyFailures.size())
                    .isLessThanOrEqualTo(otherShardChecks.get() / 20);
            // one pod's fallback: 2,000 ÷ 50 × 2 = 80 at once, then 1,000 ÷ 50 × 2 = 40/s
            double outageWithSlack = (globalAgainAt - killed) / 1e9;
            assertThat(failOpenAllowed.get()).isPositive().isLessThanOrEqualTo(80 + (long) Math.ceil(40 * outageWithSlack));
            // Counted in probes, not seconds: with its breaker open, the dead primary is sent one probe per breaker wait
            // (1 s). A failed store call re-reads the slot map, so the first probe that fails after the promotion (if
            // Lettuce's own triggers have not found it first) sends the next check to the promoted replica; a re-read
            // that raced the promotion costs one more. Waiting for the periodic refresh (10 s) would cost ten.
            assertThat(failedProbesAfterPromotion).as("probes of the dead primary that failed after the promotion").isLessThanOrEqualTo(2);
            assertThat(metrics.registry().counter(LimiterMetrics.FAIL_OPEN, "rule", "enterprise").count()).isPositive();
        }
    }

    @Test
    void aFrozenPrimaryCostsThreeTimeoutsThenAnswersFromFallbackAtOnceAndTheProbeClosesItAfterThaw() throws Exception {
        try (RedisCluster cluster = RedisCluster.builder().nodeTimeoutMs(15_000).start();
             RedisCounterStore store = connect(cluster, null)) {
            LimiterMetrics metrics = new LimiterMetrics(new SimpleMeterRegistry());
            Limiter limiter = limiter(store, metrics);
            Node victim = cluster.primaries().get(0);
            String onVictim = keyOn(cluster, victim);
            String elsewhere = keyOn(cluster, cluster.primaries().get(2));
            assertThat(answeredInARow(limiter, onVictim)).as("the shard answers before it is frozen").isEqualTo(3);
            assertThat(answeredInARow(limiter, elsewhere)).as("the other shard answers").isEqualTo(3);
            CircuitBreaker breaker = limiter.breakers().forShard(store.shardOf(RedisKeys.hashTag(onVictim)));
            List<CircuitBreaker.StateTransition> transitions = new CopyOnWriteArrayList<>();
            breaker.getEventPublisher().onStateTransition(event -> transitions.add(event.getStateTransition()));
            long timeoutsBefore = storeCalls(metrics, "timeout");
            long refusedBefore = breaker.getMetrics().getNumberOfNotPermittedCalls();

            victim.freeze();
            try {
                for (int i = 0; i < 3; i++) {
                    long took = timed(() -> assertThat(checkApi(limiter, onVictim).entries().get(0).fallback()).isEqualTo("fail_open"));
                    // a lower bound: a busy machine only makes it longer
                    assertThat(took).as("timeout %d is paid", i + 1).isGreaterThanOrEqualTo(TIMEOUT.toMillis() - 5);
                }
                assertThat(storeCalls(metrics, "timeout") - timeoutsBefore).as("store timeouts").isEqualTo(3);
                assertThat(breaker.getState()).isEqualTo(CircuitBreaker.State.OPEN);

                // counted, not timed: a check that waited for the timeout would have sent a store call
                long callsWhenOpen = storeCalls(metrics, null);
                for (int i = 0; i < 20; i++) {
                    assertThat(checkApi(limiter, onVictim).entries().get(0).fallback()).isEqualTo("fail_open");
                }
                assertThat(storeCalls(metrics, null)).as("no check waits for the timeout once the breaker is open: none reached the store")
                        .isEqualTo(callsWhenOpen);
                assertThat(breaker.getMetrics().getNumberOfNotPermittedCalls() - refusedBefore).as("checks the breaker refused").isEqualTo(20);

                // the store answered it: in less than the 100 ms command timeout, whatever the frozen shard does
                long answeredBefore = storeCalls(metrics, "ok");
                assertThat(checkApi(limiter, elsewhere).entries().get(0).fallback()).as("a slow shard never slows the others").isNull();
                assertThat(storeCalls(metrics, "ok") - answeredBefore).isEqualTo(1);
                assertThat(storeCalls(metrics, "timeout") - timeoutsBefore).isEqualTo(3);
                assertThat(closed(checkLogin(limiter, onVictim)).cause()).isEqualTo(Outcome.FailedClosed.Cause.UNAVAILABLE);
            } finally {
                victim.unfreeze();
            }
            // the breaker probes after its 1 s wait; generous, because whether the probe closed it is read from its transitions
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                    .until(() -> checkApi(limiter, onVictim).entries().get(0).fallback() == null);
            assertThat(transitions).as("the probe replied").startsWith(CircuitBreaker.StateTransition.CLOSED_TO_OPEN)
                    .endsWith(CircuitBreaker.StateTransition.OPEN_TO_HALF_OPEN, CircuitBreaker.StateTransition.HALF_OPEN_TO_CLOSED);
            assertThat(checkApi(limiter, onVictim).entries().get(0).fallback()).isNull();
        }
    }

    @Test
    void atProductionTimeoutsAFrozenPrimaryOpensItsBreakerAfterThreeStoreTimeoutsNotAfterDeadlines() throws Exception {
        // Lettuce's default timer ticks every 100 ms, so a 5 ms command timeout fired at 5-105 ms; the
        // 25 ms deadline answered first and the breaker learnt ~100 ms late, after every check in between paid it
        try (RedisCluster cluster = RedisCluster.builder().nodeTimeoutMs(15_000).start();
             RedisCounterStore store = RedisCounterStore.connect(RedisStoreSettings.of(cluster.seedUris()).withCommandTimeout(PRODUCTION_TIMEOUT))) {
            LimiterMetrics metrics = new LimiterMetrics(new SimpleMeterRegistry());
            Limiter limiter = limiter(store, metrics, LimiterSettings.DEFAULTS.withDeadline(PRODUCTION_DEADLINE));
            limiter.prepare();
            Node victim = cluster.primaries().get(0);
            String onVictim = keyOn(cluster, victim);
            CircuitBreaker breaker = limiter.breakers().forShard(store.shardOf(RedisKeys.hashTag(onVictim)));
            assertThat(answeredInARow(limiter, onVictim)).as("the shard answers within 5 ms before it is frozen").isEqualTo(3);
            assertThat(breaker.getState()).isEqualTo(CircuitBreaker.State.CLOSED);
            long timeoutsBefore = storeCalls(metrics, "timeout");
            long callsBefore = storeCalls(metrics, null);
            double deadlinesBefore = metrics.registry().get(LimiterMetrics.DEADLINE_EXCEEDED).counter().count();
            long refusedBefore = breaker.getMetrics().getNumberOfNotPermittedCalls();

            int checks = 20;
            victim.freeze();
            try {
                for (int i = 0; i < checks; i++) {
                    assertThat(checkApi(limiter, onVictim).entries().get(0).fallback()).isEqualTo("fail_open");
                }
                // every check the breaker let through sent one call: wait until each has its outcome (a timeout at
                // Lettuce's 100 ms tick comes late), by counting them rather than by sleeping long enough
                await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10)).until(() ->
                        storeCalls(metrics, null) - callsBefore + breaker.getMetrics().getNumberOfNotPermittedCalls() - refusedBefore == checks);
                long timeouts = storeCalls(metrics, "timeout") - timeoutsBefore;
                long calls = storeCalls(metrics, null) - callsBefore;
                long deadlines = (long) (metrics.registry().get(LimiterMetrics.DEADLINE_EXCEEDED).counter().count() - deadlinesBefore);
                long refused = breaker.getMetrics().getNumberOfNotPermittedCalls() - refusedBefore;
                System.out.printf("frozen primary at a 5 ms timeout and a 25 ms deadline: %d store calls (%d timed out), %d deadlines, %d checks refused by the breaker%n",
                        calls, timeouts, deadlines, refused);

                // A check's deadline fires only when the store's timeout has not come 20 ms after it was due: the
                // timer thread would have to be stalled that long, which a loaded 2-core machine can do to one
                // check, not to most. At Lettuce's 100 ms tick all but perhaps the first are answered by it.
                assertThat(deadlines).as("checks answered by the engine's deadline, not the store's timeout").isLessThanOrEqualTo(1);
                // each check that waited for the deadline let one more check reach the shard before the breaker knew
                assertThat(timeouts).as("store timeouts before the breaker opened").isBetween(3L, 3L + deadlines);
                assertThat(calls).as("every call to the frozen shard was a timeout").isEqualTo(timeouts);
                assertThat(breaker.getState()).isEqualTo(CircuitBreaker.State.OPEN);
                assertThat(refused).as("the rest answered from fallback at once, breaker open").isEqualTo(checks - calls);
                assertThat(closed(checkLogin(limiter, onVictim)).reason()).isEqualTo("breaker_open");
            } finally {
                victim.unfreeze();
            }
        }
    }

    @Test
    void aTimeoutOnALoginRuleIsAStoreTimeout() throws Exception {
        try (RedisCluster cluster = RedisCluster.builder().nodeTimeoutMs(15_000).start();
             RedisCounterStore store = connect(cluster, null)) {
            Limiter limiter = limiter(store, LimiterMetrics.noop());
            Node victim = cluster.primaries().get(1);
            String onVictim = keyOn(cluster, victim);
            // warmed through an API rule: a cold login check that timed out would throw here
            assertThat(answeredInARow(limiter, onVictim)).isEqualTo(3);
            victim.freeze();
            try {
                assertThat(closed(checkLogin(limiter, onVictim)).cause()).isEqualTo(Outcome.FailedClosed.Cause.TIMEOUT);
            } finally {
                victim.unfreeze();
            }
        }
    }

    @Test
    void clientPauseAndDebugSleepActAsTimeoutsAndNoSpendIsAppliedTwice() throws Exception {
        try (RedisCluster cluster = RedisCluster.builder().nodeTimeoutMs(15_000).start();
             RedisCounterStore store = connect(cluster, null);
             RedisClient admin = RedisClient.create()) {
            Limiter limiter = limiter(store, LimiterMetrics.noop());
            Node victim = cluster.primaries().get(2);
            String key = keyOn(cluster, victim);
            String bucket = RedisKeys.limit(key, "ledger");
            try (StatefulRedisConnection<String, String> node = admin.connect(RedisURI.create(victim.uri()));
                 StatefulRedisConnection<String, String> sleeper = admin.connect(RedisURI.create(victim.uri()))) {
                // warmed through another rule of the key: a cold ledger check that timed out would spend unseen
                assertThat(answeredInARow(limiter, key)).isEqualTo(3);
                assertThat(checkLedger(limiter, key).entries().get(0).fallback()).isNull();
                assertThat(node.sync().hget(bucket, "tokens_milli")).isEqualTo("99000");

                // a second: ten of the check's 100 ms timeouts, however long the machine takes to send the check
                node.sync().clientPause(1_000);
                assertThat(checkLedger(limiter, key).entries().get(0).fallback()).isEqualTo("fail_open");
                await().atMost(Duration.ofSeconds(10)).until(() -> "98000".equals(node.sync().hget(bucket, "tokens_milli")));

                CompletableFuture<String> asleep = sleeper.async().dispatch(CommandType.DEBUG, new StatusOutput<>(StringCodec.UTF8),
                        new CommandArgs<>(StringCodec.UTF8).add("SLEEP").add("1")).toCompletableFuture();
                // the check must reach the node after DEBUG SLEEP did: 200 ms for that one command, and 800 ms of
                // the sleep left for the check; were it too early, it would be answered instead of failing open
                Thread.sleep(200);
                assertThat(checkLedger(limiter, key).entries().get(0).fallback()).isEqualTo("fail_open");
                asleep.get(5, TimeUnit.SECONDS);
                // the timed-out spends ran once each when the node woke up: 3 in all, never more
                await().atMost(Duration.ofSeconds(10)).until(() -> !"98000".equals(node.sync().hget(bucket, "tokens_milli")));
                assertThat(node.sync().hget(bucket, "tokens_milli")).isEqualTo("97000");
            }
        }
    }

    @Test
    void aWrongPasswordAppliesEachRulesFailModeAndNeverShowsACredential() throws Exception {
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        logs.start();
        root.addAppender(logs);
        try (RedisCluster cluster = RedisCluster.builder().password("s3cret-cluster-pw").nodeTimeoutMs(15_000).start();
             RedisCounterStore store = connect(cluster, "wrong-pw-1234")) {
            LimiterMetrics metrics = new LimiterMetrics(new SimpleMeterRegistry());
            Limiter limiter = limiter(store, metrics);
            String key = "acct_auth";
            EntryResult answer = checkApi(limiter, key).entries().get(0);
            assertThat(answer.verdict().name()).isEqualTo("ALLOW");
            assertThat(answer.fallback()).isEqualTo("fail_open");
            assertThat(closed(checkLogin(limiter, key)).toString()).doesNotContain("wrong-pw-1234", "s3cret-cluster-pw");
            assertThat(metrics.registry().find(LimiterMetrics.STORE_CALLS).tag("outcome", "not_connected").timer())
                    .isNotNull().satisfies(t -> assertThat(t.count()).isPositive());
        } finally {
            root.detachAppender(logs);
        }
        assertThat(logs.list).isNotEmpty();
        assertThat(logs.list).allSatisfy(event -> assertThat(event.getFormattedMessage() + event.getThrowableProxy())
                .doesNotContain("wrong-pw-1234", "s3cret-cluster-pw"));
    }

    @Test
    void anAclDenialOfTheScriptAppliesEachRulesFailModeAndIsCountedAsAccessDenied() throws Exception {
        try (RedisCluster cluster = RedisCluster.builder().nodeTimeoutMs(15_000).start();
             RedisClient admin = RedisClient.create()) {
            for (Node node : cluster.nodes()) {
                try (StatefulRedisConnection<String, String> c = admin.connect(RedisURI.create(node.uri()))) {
                    // may connect and read the topology, may not run scripts
                    c.sync().aclSetuser("gateway", io.lettuce.core.AclSetuserArgs.Builder.on().addPassword("gw-pass-5678")
                            .allKeys().addCommand(CommandType.CLUSTER)
                            .addCommand(CommandType.PING)
                            .addCommand(CommandType.HELLO)
                            .addCommand(CommandType.CLIENT)
                            .addCommand(CommandType.COMMAND)
                            .addCommand(CommandType.INFO));
                }
            }
            RedisStoreSettings settings = RedisStoreSettings.of(cluster.seedUris()).withCommandTimeout(TIMEOUT).withCredentials("gateway", "gw-pass-5678");
            try (RedisCounterStore store = RedisCounterStore.connect(settings)) {
                assertThat(store.isConnected()).isTrue();
                LimiterMetrics metrics = new LimiterMetrics(new SimpleMeterRegistry());
                Limiter limiter = limiter(store, metrics);
                assertThat(checkApi(limiter, "acct_acl").entries().get(0).fallback()).isEqualTo("fail_open");
                assertThat(closed(checkLogin(limiter, "acct_acl")).reason()).isIn("access_denied", "breaker_open");
                assertThat(metrics.registry().find(LimiterMetrics.STORE_CALLS).tag("outcome", "access_denied").timer())
                        .isNotNull().satisfies(t -> assertThat(t.count()).isPositive());
            }
        }
    }

    private RedisCounterStore connect(RedisCluster cluster, String password) {
        return connect(cluster, password, TIMEOUT);
    }

    private RedisCounterStore connect(RedisCluster cluster, String password, Duration commandTimeout) {
        RedisStoreSettings settings = RedisStoreSettings.of(cluster.seedUris().stream()
                        .map(uri -> uri.replaceFirst("redis://[^@]*@", "redis://")).toList())
                .withCommandTimeout(commandTimeout);
        return RedisCounterStore.connect(password == null && cluster.password().isPresent()
                ? settings.withCredentials(null, cluster.password().get())
                : password == null ? settings : settings.withCredentials(null, password));
    }

    private Limiter limiter(RedisCounterStore store, LimiterMetrics metrics) {
        return limiter(store, metrics, LimiterSettings.DEFAULTS);
    }

    private Limiter limiter(RedisCounterStore store, LimiterMetrics metrics, LimiterSettings settings) {
        return Limiter.builder(new StaticRuleBook(List.of(api, login.withFailMode(dev.tollgate.common.rule.FailMode.CLOSED), ledger)), store)
                .settings(settings)
                .metrics(metrics)
                .livePods(() -> PODS)
                .build();
    }

    private static String keyOn(RedisCluster cluster, Node primary) {
        for (int i = 0; ; i++) {
            String key = "acct_" + i;
            if (cluster.primaryForKey(RedisKeys.hashTag(key)).port() == primary.port()) {
                return key;
            }
        }
    }

    /**
     * Checks of the API rule on the key until three in a row are answered by the store (at most 200): the shard's
     * connection and script are warm, and its breaker's window holds replies only, where a cold call that timed
     * out would count towards opening it. Returns how many in a row were answered at the end.
     */
    private static int answeredInARow(Limiter limiter, String key) {
        int inARow = 0;
        for (int i = 0; i < 200 && inARow < 3; i++) {
            inARow = checkApi(limiter, key).entries().get(0).fallback() == null ? inARow + 1 : 0;
        }
        return inARow;
    }

    /** Script calls counted so far with that outcome, or with any when {@code outcome} is null. */
    private static long storeCalls(LimiterMetrics metrics, String outcome) {
        var calls = metrics.registry().find(LimiterMetrics.STORE_CALLS);
        return (outcome == null ? calls : calls.tag("outcome", outcome)).timers().stream().mapToLong(Timer::count).sum();
    }

    private static CheckResponse checkApi(Limiter limiter, String key) {
        return limiter.check(new CheckRequest("api", List.of(CheckEntry.of("enterprise", key, 1)))).join().answered().orElseThrow();
    }

    private static CheckResponse checkLedger(Limiter limiter, String key) {
        return limiter.check(new CheckRequest("api", List.of(CheckEntry.of("ledger", key, 1)))).join().answered().orElseThrow();
    }

    private static Outcome checkLogin(Limiter limiter, String key) {
        return limiter.check(new CheckRequest("api", List.of(CheckEntry.of("login-ip", key, 1)))).join();
    }

    /** The outcome of a fail-closed rule whose shard could not answer. */
    private static Outcome.FailedClosed closed(Outcome outcome) {
        assertThat(outcome).isInstanceOf(Outcome.FailedClosed.class);
        return (Outcome.FailedClosed) outcome;
    }

    private static long timed(Runnable check) {
        long start = System.nanoTime();
        check.run();
        return (System.nanoTime() - start) / 1_000_000;
    }


}
