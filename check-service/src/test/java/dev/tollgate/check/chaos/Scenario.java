package dev.tollgate.check.chaos;

import dev.tollgate.testsupport.redis.Node;
import dev.tollgate.testsupport.redis.RedisCluster;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.fail;

/**
 * One chaos scenario's moving parts, closed together whatever happens (load, then pods, then the cluster's
 * {@code redis-server} processes): its cluster, its pods, its load and its {@link Ledger}.
 */
final class Scenario implements AutoCloseable {

    /** Limits answer from the store again within 2 s of a fault clearing (issue 11). */
    static final Duration RECOVERY = Duration.ofSeconds(2);

    private final String name;
    private final Pods.Timing timing;
    private final ChaosRules rules = ChaosRules.load();
    private final Targets targets;
    private final Ledger ledger;
    /** Threads older than the scenario: evidence shows only its own pods' threads. */
    private final Set<Long> olderThreads = Evidence.threadIds();
    private final BoxStalls stalls;
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private final HttpClient probe = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(1)).build();
    private RedisCluster cluster;
    private Pods pods;
    private Load load;
    private ShardFailures shardFailures;

    /** A scenario at the dev stack's timing ({@link Pods.Timing#DEV}). */
    Scenario(String name) {
        this(name, Pods.Timing.DEV);
    }

    Scenario(String name, Pods.Timing timing) {
        this.name = name;
        this.timing = timing;
        // three ordinary and one hot key per shard, every rule on each
        this.targets = Targets.spread(rules, name, 3, 1, 6);
        this.ledger = new Ledger(name, limits(timing));
        this.stalls = new BoxStalls(timing.stallThreshold());
    }

    /**
     * The deadline is the pods'; the slack what a loaded 2-core box adds to it (the client's and the pods'
     * scheduling in one JVM, GC); the client gives up at 3 s, which is a hang.
     */
    static Ledger.Limits limits(Pods.Timing timing) {
        return new Ledger.Limits(timing.deadline(), Duration.ofMillis(750), Duration.ofSeconds(3), RECOVERY, timing.stallThreshold());
    }

    String name() {
        return name;
    }

    ChaosRules rules() {
        return rules;
    }

    Ledger ledger() {
        return ledger;
    }

    Targets targets() {
        return targets;
    }

    RedisCluster cluster() {
        return cluster;
    }

    Pods pods() {
        return pods;
    }

    RedisCluster startCluster(RedisCluster.Builder builder) {
        cluster = builder.start();
        return cluster;
    }

    Pods startPods(Pods.Config config) {
        pods = Pods.start(name, timing, config);
        return pods;
    }

    /** The cluster's nodes as the pods' spring.data.redis.cluster.nodes (the pods get the password on its own). */
    static List<String> seeds(List<Integer> ports) {
        return ports.stream().map(port -> "127.0.0.1:" + port).toList();
    }

    static List<String> seeds(RedisCluster cluster) {
        return seeds(cluster.nodes().stream().map(Node::port).toList());
    }

    /**
     * Before any fault: every pod answers every rule from the store (no fallback) and counts every pod, so that
     * what follows starts from a pod that enforces, as in production.
     */
    void awaitEnforcing(Duration timeout) {
        String key = name + "-warm";
        for (Pods.Pod pod : pods.all()) {
            for (var rule : rules.all()) {
                Target target = new Target(rule, key, 1);
                Pods.awaitTrue(pod.id() + " to answer " + rule.id() + " from the store", timeout, () -> {
                    String body = post(pod, target);
                    return body != null && body.contains("\"verdict\"") && !body.contains("fallback") && !body.contains("unknown_rule");
                });
            }
        }
        pods.awaitPodsCounted(timeout);
    }

    void startLoad(Load.Shape shape) {
        startLoad(shape, targets);
    }

    /**
     * Load of some of the scenario's targets only. Where the timing lets the box time out calls to healthy shards,
     * the pods' count of failed store calls is watched from now on (see {@link #stopLoad()}).
     */
    void startLoad(Load.Shape shape, Targets some) {
        if (timing.podsCountTheBoxsTimeouts()) {
            shardFailures = ShardFailures.watch(pods, cluster.primaries(), timing.commandTimeout());
        }
        load = Load.start(pods, some, ledger, shape);
    }

    /**
     * Stops the load, once every request is answered or given up on. The box's stalls go in the ledger, and so
     * does every store call that the pods counted as failed, or saw answer late, on a shard no injected fault hit:
     * at a timeout within the box's scheduling noise, that call's fail-mode answer is the box's, like a stall's.
     */
    void stopLoad() {
        load.stop();
        stalls.close();
        stalls.stalls().forEach(ledger::boxStall);
        if (shardFailures != null) {
            shardFailures.close();
            Map<String, Set<String>> keysByShard = new HashMap<>();
            for (ShardFailures.Failure failure : shardFailures.failures()) {
                Set<String> keys = keysByShard.computeIfAbsent(failure.shard(), shard -> keysOn(shardFailures.node(shard)));
                if (ledger.faults().stream().noneMatch(fault -> fault.injected() && keys.stream().anyMatch(key -> fault.hits(key)))) {
                    ledger.slowCall(failure, keys);
                }
            }
        }
    }

    /** The store calls the pods counted as failed or late during the load, where the timing has them watched (else none). */
    List<ShardFailures.Failure> shardFailures() {
        return shardFailures == null ? List.of() : shardFailures.failures();
    }

    /** The keys (of the scenario's targets) whose slots {@code primary} owns now. */
    Set<String> keysOn(Node primary) {
        return targets.keys().stream()
                .filter(key -> cluster.primaryForKey("{" + key + "}").port() == primary.port())
                .collect(Collectors.toSet());
    }

    /** {@code /actuator/health/readiness} of a pod: its status member, or the HTTP status when there is none. */
    String readiness(Pods.Pod pod) {
        try {
            HttpResponse<String> response = probe.send(HttpRequest.newBuilder(pod.readiness()).timeout(Duration.ofSeconds(3)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            String body = response.body();
            int at = body.indexOf("\"status\":\"");
            return at < 0 ? "HTTP " + response.statusCode() : body.substring(at + 10, body.indexOf('"', at + 10)) + " (HTTP " + response.statusCode() + ")";
        } catch (IOException e) {
            return "unreachable: " + e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    /**
     * What {@code /actuator/health} says of the pod's store connection ({@code counterStore.details.connected}), as
     * text: {@code true}, {@code false}, or what came instead.
     */
    String storeConnected(Pods.Pod pod) {
        try {
            HttpResponse<String> response = probe.send(HttpRequest.newBuilder(pod.base().resolve("/actuator/health"))
                    .timeout(Duration.ofSeconds(3)).GET().build(), HttpResponse.BodyHandlers.ofString());
            JsonNode connected = JSON.readTree(response.body()).path("components").path("counterStore").path("details").path("connected");
            return connected.isBoolean() ? Boolean.toString(connected.booleanValue()) : "no connected detail (HTTP " + response.statusCode() + ")";
        } catch (IOException | JacksonException e) {
            return "unreadable: " + e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    private String post(Pods.Pod pod, Target target) {
        try {
            HttpResponse<String> response = probe.send(HttpRequest.newBuilder(pod.check()).timeout(Duration.ofSeconds(2))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(target.body())).build(),
                    HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? response.body() : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Lets the scenario run: the load goes on meanwhile. Not an assertion; the ledger judges afterwards. */
    static void hold(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * Prints the scenario's report lines, then fails with every broken invariant, the pods' blocked threads and
     * engine state attached when a request went unanswered or late.
     */
    void verify(List<Ledger.Finding> findings, String... extraLines) {
        boolean bounded = findings.stream().anyMatch(f -> f.label().equals(Ledger.BOUND_LABEL));
        List<String> lines = new ArrayList<>(ledger.report(bounded));
        if (load != null) {
            lines.add(String.format("CHAOS %s | load: %d requests sent, %d open-loop ticks skipped (too many in flight)",
                    name, load.sent(), load.skipped()));
        }
        lines.addAll(List.of(extraLines));
        List<Ledger.Finding> all = new ArrayList<>(findings);
        String verdict = Ledger.violations(name, all);
        lines.add("CHAOS " + name + " | invariants: " + all.stream()
                .map(f -> f.label() + (f.holds() ? " ok" : " BROKEN (" + f.count() + ")"))
                .collect(Collectors.joining(", ")));
        boolean hung = findings.stream().anyMatch(f -> f.label().equals(Ledger.IN_TIME_LABEL) && !f.holds());
        String evidence = hung && pods != null
                ? "\n  blocked threads in the pods:" + Evidence.blockedThreads(olderThreads) + "\n  engine state:" + Evidence.engineState(pods)
                : "";
        synchronized (System.out) {
            lines.forEach(System.out::println);
            if (!evidence.isEmpty()) {
                System.out.println("CHAOS " + name + " | evidence:" + evidence);
            }
        }
        if (verdict != null) {
            fail(verdict + evidence);
        }
    }

    /** Closes what it can, in order, and reports what would not close. */
    @Override
    public void close() {
        List<Throwable> failures = new ArrayList<>();
        stalls.close();
        run(failures, () -> load, Load::close);
        run(failures, () -> pods, Pods::close);
        run(failures, () -> cluster, RedisCluster::close);
        if (!failures.isEmpty()) {
            IllegalStateException failure = new IllegalStateException("could not close all of scenario " + name);
            failures.forEach(failure::addSuppressed);
            throw failure;
        }
    }

    private static <T> void run(List<Throwable> failures, Supplier<T> part, java.util.function.Consumer<T> close) {
        T value = part.get();
        if (value == null) {
            return;
        }
        try {
            close.accept(value);
        } catch (RuntimeException e) {
            failures.add(e);
        }
    }
}
