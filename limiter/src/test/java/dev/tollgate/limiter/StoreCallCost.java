package dev.tollgate.limiter;

import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.limiter.rules.StaticRuleBook;
import dev.tollgate.store.LuaScript;
import dev.tollgate.store.RedisCounterStore;
import dev.tollgate.store.RedisStoreSettings;
import dev.tollgate.store.script.ScriptCall;
import dev.tollgate.store.script.Spend;
import dev.tollgate.store.script.SpendCall;
import dev.tollgate.testsupport.redis.RedisCluster;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.function.IntFunction;

/**
 * Issue 29's harness, not a test: what one store call costs the pod on the store-bound mix (a 2-entry check, a plan
 * bucket and a 5/s route bucket on one account key, over 1,000 keys, every key under its limit, no optimization
 * on, so every check is one script call), on a real 3-primary cluster, 64 calls in flight. Prints, per round, the
 * bytes allocated by all the JVM's threads per call (deterministic up to a few %) and the process CPU per call
 * (noisy on a shared machine). Two modes: {@code engine} runs {@link Limiter#check}; {@code store} runs
 * {@link RedisCounterStore#run} with each key's call built once, so it is the store call alone.
 *
 * <pre>
 * ./mvnw -B -pl limiter -am test-compile dependency:build-classpath -Dmdep.outputFile=target/test.cp -Dmdep.includeScope=test
 * java -Xmx512m -cp limiter/target/test-classes:limiter/target/classes:counter-store/target/classes:common/target/classes:\
 *     test-support/target/classes:$(cat limiter/target/test.cp) dev.tollgate.limiter.StoreCallCost engine|store [calls per round] [rounds]
 * </pre>
 */
public final class StoreCallCost {

    private static final int KEYS = 1_000;
    private static final int IN_FLIGHT = 64;

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "engine";
        int calls = args.length > 1 ? Integer.parseInt(args[1]) : 200_000;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        RedisCluster cluster = RedisCluster.shared();
        Duration timeout = Duration.ofSeconds(2);
        try (RedisCounterStore store = RedisCounterStore.connect(RedisStoreSettings.of(cluster.seedUris()).withCommandTimeout(timeout))) {
            Rule plan = Rule.tokenBucket("plan", "api", 1_000_000, 1_000_000).withMatch(new Match("pro", null));
            Rule route = Rule.tokenBucket("route", "api", 5, 1_000_000).withMatch(new Match(null, "/v1/charges"));
            Limiter limiter = Limiter.builder(new StaticRuleBook(List.of(plan, route)), store).metrics(LimiterMetrics.noop())
                    .settings(LimiterSettings.DEFAULTS.withDeadline(timeout.multipliedBy(3))).build();
            limiter.prepare();
            String run = Long.toString(System.nanoTime(), 36);
            IntFunction<CompletableFuture<?>> call;
            if (mode.equals("engine")) {
                CheckRequest[] requests = new CheckRequest[KEYS];
                for (int i = 0; i < KEYS; i++) {
                    String key = "acct_" + run + "_" + i;
                    requests[i] = new CheckRequest("api", List.of(CheckEntry.of("plan", key, 1), CheckEntry.of("route", key, 1)));
                }
                call = i -> limiter.check(requests[i % KEYS]);
            } else {
                ScriptCall[] scripts = new ScriptCall[KEYS];
                List<Spend> spends = List.of(new Spend(plan, 1.0, 1), new Spend(route, 1.0, 1));
                for (int i = 0; i < KEYS; i++) {
                    scripts[i] = SpendCall.of("acct_" + run + "_" + i, spends, 1, 1, System.currentTimeMillis());
                }
                call = i -> {
                    ScriptCall s = scripts[i % KEYS];
                    return store.run(LuaScript.SPEND, s.keys(), s.args());
                };
            }
            drive(call, calls / 2); // warm-up: the JIT and the connections
            com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            com.sun.management.OperatingSystemMXBean os =
                    (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            double[] bytes = new double[rounds];
            double[] cpu = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                long allocated = allocated(threads);
                long cpuNanos = os.getProcessCpuTime();
                long wall = System.nanoTime();
                drive(call, calls);
                wall = System.nanoTime() - wall;
                bytes[r] = (allocated(threads) - allocated) / (double) calls;
                cpu[r] = (os.getProcessCpuTime() - cpuNanos) / 1_000.0 / calls;
                System.out.printf("%s round %d: %.0f B/call, %.1f us CPU/call (noisy), %.0f calls/s%n",
                        mode, r, bytes[r], cpu[r], calls * 1e9 / wall);
            }
            Arrays.sort(bytes);
            Arrays.sort(cpu);
            System.out.printf("%s median: %.0f B/call, %.1f us CPU/call (noisy)%n", mode, bytes[rounds / 2], cpu[rounds / 2]);
        }
        System.exit(0);
    }

    /** {@code calls} calls, at most {@link #IN_FLIGHT} at once; fails on any failed call. */
    private static void drive(IntFunction<CompletableFuture<?>> call, int calls) throws InterruptedException {
        Semaphore window = new Semaphore(IN_FLIGHT);
        List<Throwable> failures = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            window.acquire();
            call.apply(i).whenComplete((ok, error) -> {
                if (error != null) {
                    synchronized (failures) {
                        failures.add(error);
                    }
                }
                window.release();
            });
        }
        window.acquire(IN_FLIGHT);
        if (!failures.isEmpty()) {
            throw new IllegalStateException(failures.size() + " calls failed", failures.get(0));
        }
    }

    /** Bytes allocated so far by every live thread of the JVM. */
    private static long allocated(com.sun.management.ThreadMXBean threads) {
        long total = 0;
        for (long bytes : threads.getThreadAllocatedBytes(threads.getAllThreadIds())) {
            total += Math.max(0, bytes);
        }
        return total;
    }
}
