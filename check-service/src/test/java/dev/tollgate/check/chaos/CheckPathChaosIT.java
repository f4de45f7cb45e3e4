package dev.tollgate.check.chaos;

import dev.tollgate.testsupport.redis.Node;
import dev.tollgate.testsupport.redis.RedisCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The chaos suite of issue 11: two check-service pods under load of every rule of {@code chaos-rules.yml} (each
 * algorithm, failing open and failing closed), while real {@code redis-server} processes are killed, frozen, flushed,
 * cut off and locked, and while rules-service is down. Every request sent is recorded and held to the
 * {@link Ledger}'s invariants: answered within the deadline, never a 500, 503/504 only for fail-closed limits on
 * the faulted shard, admitted within {@code B + R·T} plus the documented fail-open allowance, and full recovery
 * within 2 s of the fault clearing. Each scenario prints {@code CHAOS ...} lines with its figures. The pods run at
 * the dev stack's store timeout (100 ms) unless a scenario names production's (5 ms; see {@link Pods.Timing}).
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class CheckPathChaosIT {

    private static final Duration READY = Duration.ofSeconds(20);
    /** Load before the first fault: a baseline the invariants hold for too. */
    private static final Duration BASELINE = Duration.ofSeconds(1);
    /** After a fault clears: the recovery budget, and a second to see that it held. */
    private static final Duration AFTER_CLEAR = Scenario.RECOVERY.plusMillis(1_000);

    private static Path scratch;

    @BeforeAll
    static void scratch() throws IOException {
        scratch = Files.createTempDirectory("tollgate-chaos");
    }

    @AfterAll
    static void removeScratch() throws IOException {
        try (Stream<Path> files = Files.walk(scratch)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
    }

    /** Issue 11, finding 1: a pod that missed its first connect must not stay on fallback for good. */
    @Test
    void podsStartedBeforeTheClusterExistsEnforceWithinTwoSecondsOfItAnswering() {
        try (Scenario scenario = new Scenario("cold-start")) {
            List<Integer> ports = RedisCluster.reservePorts(3);
            scenario.startPods(Pods.Config.of(Scenario.seeds(ports), true));
            Fault noCluster = scenario.ledger().faultEverywhere("no cluster until it is started and answers");
            scenario.startLoad(Load.Shape.STANDARD);
            Scenario.hold(Duration.ofSeconds(2));
            Ledger.Finding saysNotConnected = health(scenario, "false", "health-not-connected",
                    "a pod that has never reached its store says so in /actuator/health");
            scenario.startCluster(RedisCluster.builder().ports(ports));
            noCluster.cleared();
            Scenario.hold(Duration.ofSeconds(4));
            Ledger.Finding saysConnected = health(scenario, "true", "health-connected",
                    "a pod connected to its store says so in /actuator/health, 4 s after the cluster answers");
            scenario.stopLoad();
            List<Ledger.Finding> findings = new ArrayList<>(scenario.ledger().storeFaultInvariants());
            findings.addAll(List.of(saysNotConnected, saysConnected));
            scenario.verify(findings);
        }
    }

    /** Every primary SIGKILLed in turn: its replica takes over, then the killed node is started again and rejoins. */
    @Test
    void everyPrimaryKilledInTurnThenRestarted() {
        try (Scenario scenario = new Scenario("sigkill")) {
            RedisCluster cluster = scenario.startCluster(RedisCluster.builder().replicas(true).nodeTimeoutMs(500));
            scenario.startPods(Pods.Config.of(Scenario.seeds(cluster), true));
            scenario.awaitEnforcing(READY);
            scenario.startLoad(Load.Shape.STANDARD);
            Scenario.hold(BASELINE);
            List<String> failovers = new ArrayList<>();
            for (Node victim : cluster.primaries()) {
                Set<String> keys = scenario.keysOn(victim);
                Fault fault = scenario.ledger().faultOn("SIGKILL " + victim, keys);
                long killed = System.nanoTime();
                victim.kill();
                Node promoted = cluster.awaitPromotedReplicaFor(victim, Duration.ofSeconds(20));
                fault.cleared();
                failovers.add(String.format("%s -> %s promoted after %d ms", victim, promoted,
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed)));
                Scenario.hold(AFTER_CLEAR);
                cluster.restart(victim);
                cluster.awaitHealthy(Duration.ofSeconds(20));
            }
            Scenario.hold(Duration.ofMillis(500));
            scenario.stopLoad();
            scenario.verify(scenario.ledger().storeFaultInvariants(), "CHAOS sigkill | failovers: " + String.join("; ", failovers));
        }
    }

    /**
     * Issue 11, finding 2: a frozen primary's fail-closed token buckets must answer again after the thaw; a lease call
     * the freeze left incomplete once held every later check of its lease set for good.
     */
    @Test
    void eachPrimaryFrozenThenThawedWithLeases() {
        freezeEachPrimary("freeze-leases-on", true);
    }

    @Test
    void eachPrimaryFrozenThenThawedWithoutLeases() {
        freezeEachPrimary("freeze-leases-off", false);
    }

    /**
     * SIGSTOP for about 3 s, then SIGCONT. The node timeout stays at its default (5 s), so the cluster does not
     * fail the node over: the shard only stalls, as in a long GC pause or a partition that heals.
     */
    private void freezeEachPrimary(String name, boolean leases) {
        try (Scenario scenario = new Scenario(name)) {
            RedisCluster cluster = scenario.startCluster(RedisCluster.builder());
            scenario.startPods(Pods.Config.of(Scenario.seeds(cluster), leases));
            scenario.awaitEnforcing(READY);
            scenario.startLoad(Load.Shape.STANDARD);
            Scenario.hold(BASELINE);
            for (Node victim : cluster.primaries()) {
                Fault fault = scenario.ledger().faultOn("SIGSTOP 3 s " + victim, scenario.keysOn(victim));
                victim.freeze();
                try {
                    Scenario.hold(Duration.ofSeconds(3));
                } finally {
                    victim.unfreeze();
                }
                fault.cleared();
                Scenario.hold(AFTER_CLEAR);
            }
            scenario.stopLoad();
            scenario.verify(scenario.ledger().storeFaultInvariants());
        }
    }

    /**
     * At production's timing (store timeout 5 ms, deadline 25 ms): a frozen primary costs each pod the
     * design's three store timeouts, then its breaker answers at once, and no check waits for the deadline. Counted by
     * the pods' own meters around each check of a {@link ShardProbe}, the frozen shard's only traffic, one check at a
     * time per pod; the standard load runs on the other two shards meanwhile. Held to the ledger's invariants too,
     * but for recovery over the answers after the budget: at 5 ms the box times out a call to a healthy shard now and
     * then, so the probe stops when the budget ends, and the store must have answered each pod again by then.
     */
    @Test
    void aFrozenPrimaryCostsEachPodThreeStoreTimeoutsAtProductionTiming() {
        try (Scenario scenario = new Scenario("freeze-production", Pods.Timing.PRODUCTION)) {
            RedisCluster cluster = scenario.startCluster(RedisCluster.builder());
            scenario.startPods(Pods.Config.of(Scenario.seeds(cluster), true));
            scenario.awaitEnforcing(READY);
            Node victim = cluster.primaries().get(0);
            try (ShardProbe probe = new ShardProbe(scenario, victim, 0)) {
                Set<String> victimKeys = new HashSet<>(scenario.keysOn(victim));
                scenario.startLoad(Load.Shape.STANDARD, scenario.targets().without(victimKeys));
                victimKeys.addAll(probe.keys());
                Scenario.hold(BASELINE);
                Fault fault = scenario.ledger().faultOn("SIGSTOP 3 s " + victim, victimKeys);
                victim.freeze();
                try {
                    probe.start();
                    Scenario.hold(Duration.ofSeconds(3));
                    probe.thawing();
                } finally {
                    victim.unfreeze();
                }
                fault.cleared();
                probe.awaitEnd();
                scenario.stopLoad();
                List<Ledger.Finding> findings = new ArrayList<>(List.of(scenario.ledger().answeredInTime(), scenario.ledger().noServerErrors(),
                        scenario.ledger().failModesOnlyWhereFaulted(), scenario.ledger().admittedWithinBound()));
                findings.addAll(probe.findings());
                scenario.verify(findings, probe.report().toArray(String[]::new));
            }
        }
    }

    /** docs/check-api.md, "The scripts": a NOSCRIPT is answered by one EVAL of the same call, so SCRIPT FLUSH is invisible to callers. */
    @Test
    void scriptFlushOnEveryNodeUnderLoad() {
        try (Scenario scenario = new Scenario("script-flush")) {
            RedisCluster cluster = scenario.startCluster(RedisCluster.builder());
            scenario.startPods(Pods.Config.of(Scenario.seeds(cluster), false));
            scenario.awaitEnforcing(READY);
            scenario.startLoad(Load.Shape.STANDARD);
            Scenario.hold(BASELINE);
            for (int round = 1; round <= 3; round++) {
                Fault fault = scenario.ledger().faultEverywhere("SCRIPT FLUSH #" + round + " on every node");
                cluster.nodes().forEach(Node::flushScripts);
                fault.cleared();
                Scenario.hold(AFTER_CLEAR);
            }
            scenario.stopLoad();
            List<Ledger.Finding> findings = new ArrayList<>(scenario.ledger().storeFaultInvariants());
            findings.add(scenario.ledger().noFailModeAnswers());
            scenario.verify(findings);
        }
    }

    /** CLIENT KILL TYPE normal on every node: the pods' connections drop under load and must come back. */
    @Test
    void thePodsConnectionsKilledUnderLoad() {
        try (Scenario scenario = new Scenario("client-kill")) {
            RedisCluster cluster = scenario.startCluster(RedisCluster.builder());
            scenario.startPods(Pods.Config.of(Scenario.seeds(cluster), true));
            scenario.awaitEnforcing(READY);
            scenario.startLoad(Load.Shape.STANDARD);
            Scenario.hold(BASELINE);
            List<Long> killed = new ArrayList<>();
            for (int round = 1; round <= 3; round++) {
                Fault fault = scenario.ledger().faultEverywhere("CLIENT KILL #" + round + " on every node");
                killed.add(cluster.nodes().stream().mapToLong(Node::killClients).sum());
                fault.cleared();
                Scenario.hold(AFTER_CLEAR);
            }
            scenario.stopLoad();
            scenario.verify(scenario.ledger().storeFaultInvariants(), "CHAOS client-kill | connections killed per round: " + killed);
        }
    }

    /**
     * The nodes require another password for 3 s (CONFIG SET requirepass, and every client connection killed so
     * that the pods must authenticate again), then the pods' password again.
     */
    @Test
    void aWrongPasswordThenTheRightOne() {
        String right = "chaos-right-pw";
        try (Scenario scenario = new Scenario("wrong-password")) {
            RedisCluster cluster = scenario.startCluster(RedisCluster.builder().password(right));
            scenario.startPods(Pods.Config.of(Scenario.seeds(cluster), false).withPassword(right));
            scenario.awaitEnforcing(READY);
            scenario.startLoad(Load.Shape.STANDARD);
            Scenario.hold(BASELINE);
            Fault fault = scenario.ledger().faultEverywhere("nodes require another password for 3 s");
            cluster.changePassword("chaos-other-pw");
            cluster.nodes().forEach(Node::killClients);
            Scenario.hold(Duration.ofSeconds(3));
            cluster.changePassword(right);
            fault.cleared();
            Scenario.hold(AFTER_CLEAR);
            scenario.stopLoad();
            scenario.verify(scenario.ledger().storeFaultInvariants());
        }
    }

    /** docs/rules.md, "How rules reach the pods": a pod restarted while rules-service is down enforces its saved snapshot. */
    @Test
    void rulesServiceDownAtStartWithASavedSnapshot() {
        Path snapshot = scratch.resolve("saved-snapshot.json");
        ChaosRules.writeSnapshot(snapshot, 7);
        try (Scenario scenario = new Scenario("rules-down-saved")) {
            RedisCluster cluster = scenario.startCluster(RedisCluster.builder());
            scenario.startPods(Pods.Config.of(Scenario.seeds(cluster), true)
                    .watching("http://127.0.0.1:" + ClusterPorts.closed(), snapshot));
            scenario.awaitEnforcing(READY);
            scenario.startLoad(Load.Shape.STANDARD);
            Scenario.hold(Duration.ofSeconds(4));
            scenario.stopLoad();
            List<Ledger.Finding> findings = new ArrayList<>(List.of(scenario.ledger().answeredInTime(), scenario.ledger().noServerErrors(),
                    scenario.ledger().failModesOnlyWhereFaulted(), scenario.ledger().admittedWithinBound()));
            findings.add(readiness(scenario, "UP", "ready", "a pod enforcing its saved snapshot is ready"));
            scenario.verify(findings);
        }
    }

    /**
     * Issue 11, "Readiness means enforcing": a pod that watches rules and has none is not ready, and
     * never lets a fail-closed route through.
     */
    @Test
    void rulesServiceDownAtStartWithoutASnapshot() {
        Path snapshot = scratch.resolve("never-saved").resolve("snapshot.json");
        try (Scenario scenario = new Scenario("rules-down-none")) {
            RedisCluster cluster = scenario.startCluster(RedisCluster.builder());
            scenario.startPods(Pods.Config.of(Scenario.seeds(cluster), true)
                    .watching("http://127.0.0.1:" + ClusterPorts.closed(), snapshot));
            scenario.pods().awaitPodsCounted(READY);
            Ledger.Finding readyBefore = readiness(scenario, "OUT_OF_SERVICE", "not-ready-before", "a pod with no rules is not ready (before the load)");
            scenario.startLoad(Load.Shape.STANDARD);
            Scenario.hold(Duration.ofSeconds(3));
            scenario.stopLoad();
            scenario.verify(List.of(scenario.ledger().answeredInTime(), scenario.ledger().noServerErrors(),
                    scenario.ledger().failClosedNeverAllowed(), readyBefore,
                    readiness(scenario, "OUT_OF_SERVICE", "not-ready-after", "a pod with no rules is not ready (after the load)")));
        }
    }

    private static Ledger.Finding health(Scenario scenario, String expected, String label, String invariant) {
        List<String> wrong = new ArrayList<>();
        for (Pods.Pod pod : scenario.pods().all()) {
            String connected = scenario.storeConnected(pod);
            if (!connected.equals(expected)) {
                wrong.add("pod " + pod.index() + " counterStore connected: " + connected);
            }
        }
        return new Ledger.Finding(label, invariant + " (counterStore.details.connected " + expected + ")", wrong.size(), wrong);
    }

    private static Ledger.Finding readiness(Scenario scenario, String expected, String label, String invariant) {
        List<String> wrong = new ArrayList<>();
        for (Pods.Pod pod : scenario.pods().all()) {
            String status = scenario.readiness(pod);
            if (!status.startsWith(expected)) {
                wrong.add("pod " + pod.index() + " readiness: " + status);
            }
        }
        return new Ledger.Finding(label, invariant + " (/actuator/health/readiness " + expected + ")", wrong.size(), wrong);
    }
}
