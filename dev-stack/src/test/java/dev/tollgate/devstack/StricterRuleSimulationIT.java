package dev.tollgate.devstack;

import dev.tollgate.devstack.demo.AdminClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.time.Duration;
import java.util.UUID;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 30's "done when", end to end on the dev stack (rules-service, two pods, one Redis Cluster): steady traffic over
 * a lenient rule, a simulation of a stricter version from what the pods recorded, then the stricter version enforced
 * on the same traffic; what it then denies is within the simulation's error bound of what it predicted. Time-scaled:
 * three 10 s usage windows of traffic a phase, less their last second, instead of a minute, each simulated as soon as it
 * is recorded.
 * The numbers are printed and quoted in docs/rules.md.
 */
class StricterRuleSimulationIT {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String DOMAIN = "public-api";
    private static final int WINDOWS = 3;
    private static final long TICK_MS = 50;
    /**
     * Ticks of traffic a phase: its windows less their last second. A pod puts a flush interval's counts (1 s) in the window
     * of the interval's midpoint, so checks in a window's last half second may be recorded in the next one, which a
     * simulation reads only once it has closed, ten seconds later; with that second quiet, each phase is recorded whole
     * once its last window closes.
     */
    private static final int TICKS = (int) ((WINDOWS * 10_000 - 1_000) / TICK_MS);
    private static final long BUSY_CHECKS = TICKS;
    private static final long QUIET_CHECKS = (TICKS + 9) / 10;
    private static final String LENIENT = "\"rate_per_s\":1000,\"burst\":2000";
    private static final String STRICTER = "\"rate_per_s\":5,\"burst\":10";

    private static DevStack stack;
    private static AdminClient admin;
    private static Pod a;
    private static Pod b;

    @BeforeAll
    static void start() {
        stack = DevStack.start("--check-port=" + Pod.freePort(), "--extra-check-port=" + Pod.freePort(), "--rules-port=" + Pod.freePort(),
                "--rebalancer-port=" + Pod.freePort(), "--no-demo-rules");
        admin = stack.admin();
        a = Pod.of("pod A", stack.checkServices().get(0));
        b = Pod.of("pod B", stack.checkServices().get(1));
    }

    @AfterAll
    static void stop() {
        if (stack != null) {
            stack.close();
        }
    }

    /**
     * {@link #WINDOWS} windows of traffic but their last second: a busy key at 20/s (alternating pods) and a quiet one at 2/s.
     *
     * @return the denials per key, and when the traffic's last window closes (ms since the epoch)
     */
    private static Traffic traffic(String rule, String busy, String quiet) throws InterruptedException {
        long now = System.currentTimeMillis();
        long start = now - now % 10_000 + 10_000;
        Thread.sleep(start - now);
        long[] denied = new long[2];
        for (int i = 0; i < TICKS; i++) {
            long due = start + i * TICK_MS + TICK_MS / 2;
            long wait = due - System.currentTimeMillis();
            if (wait > 0) {
                Thread.sleep(wait);
            }
            Pod pod = i % 2 == 0 ? a : b;
            if ("deny".equals(pod.verdict(DOMAIN, rule, busy))) {
                denied[0]++;
            }
            if (i % 10 == 0 && "deny".equals(pod.verdict(DOMAIN, rule, quiet))) {
                denied[1]++;
            }
        }
        return new Traffic(denied, start + WINDOWS * 10_000L);
    }

    private record Traffic(long[] denied, long endMs) {
    }

    /**
     * The simulation of a span around the traffic once what {@code complete} waits for has been recorded: a simulation reads
     * closed windows only, so not before the traffic's last window has closed and the pods have flushed it (each second).
     * Should a count still land in the window after, that one closes ten seconds later.
     */
    private static JsonNode simulateOnceRecorded(String rule, String limit, Traffic traffic, Predicate<JsonNode> complete)
            throws InterruptedException {
        long lastChance = traffic.endMs() + 10_000 + 2_000;
        Thread.sleep(Math.max(0, traffic.endMs() + 1_500 - System.currentTimeMillis()));
        while (true) {
            JsonNode simulation = simulate(rule, limit);
            if (complete.test(simulation) || System.currentTimeMillis() > lastChance) {
                return simulation;
            }
            Thread.sleep(500);
        }
    }

    /**
     * The last {@link #WINDOWS} + 1 closed windows: the traffic's and the one before it, which the phase before (if any)
     * left empty (the next phase starts at least a window after this one's last).
     */
    private static JsonNode simulate(String rule, String limit) {
        AdminClient.Response answer = admin.post("/v1/rules/" + rule + ":simulate?span=" + (WINDOWS + 1) * 10 + "s", tokenBucket(limit), null);
        assertThat(answer.status()).as(answer.body()).isEqualTo(200);
        return JSON.readTree(answer.body());
    }

    /** The key's recorded checks in the simulation; 0 while none is recorded. */
    private static long checksOf(JsonNode simulation, String key) {
        for (JsonNode impact : simulation.get("keys")) {
            if (impact.get("key").asString().equals(key)) {
                return impact.get("checks").asLong();
            }
        }
        return 0;
    }

    private static String tokenBucket(String limit) {
        return "{\"domain\":\"" + DOMAIN + "\",\"match\":{\"plan\":\"growth\"},\"algorithm\":\"token_bucket\"," + limit + "}";
    }

    @Test
    void predictsWhatAStricterRuleDeniesOnTheSameTrafficWithinItsErrorBound() throws InterruptedException {
        String rule = "simulated-" + UUID.randomUUID().toString().substring(0, 8);
        String busy = "acct_busy_" + rule;
        String quiet = "acct_quiet_" + rule;
        AdminClient.Response created = admin.put("/v1/rules/" + rule, tokenBucket(LENIENT), null);
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!(a.knows(DOMAIN, rule) && b.knows(DOMAIN, rule)) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }

        Traffic first = traffic(rule, busy, quiet);
        long[] lenient = first.denied();
        JsonNode predicted = simulateOnceRecorded(rule, STRICTER, first,
                simulation -> checksOf(simulation, busy) == BUSY_CHECKS && checksOf(simulation, quiet) == QUIET_CHECKS);

        assertThat(lenient).containsExactly(0, 0);
        assertThat(predicted.get("windows").asInt()).isEqualTo(WINDOWS + 1);
        assertThat(checksOf(predicted, busy)).as("every check recorded: %s", predicted).isEqualTo(BUSY_CHECKS);
        assertThat(checksOf(predicted, quiet)).as("every check recorded: %s", predicted).isEqualTo(QUIET_CHECKS);
        assertThat(predicted.get("denied_now").asLong()).isZero();

        String etag = admin.get("/v1/rules/" + rule).etag();
        AdminClient.Response enforced = admin.put("/v1/rules/" + rule, tokenBucket(STRICTER + ",\"reason\":\"simulated first\""), etag);
        assertThat(enforced.status()).as(enforced.body()).isEqualTo(200);
        Thread.sleep(1_000);
        Traffic second = traffic(rule, busy, quiet);
        long[] strict = second.denied();
        long actual = strict[0] + strict[1];
        JsonNode recorded = simulateOnceRecorded(rule, STRICTER, second, simulation -> simulation.get("denied_now").asLong() == actual);

        long prediction = predicted.get("denied_proposed").asLong();
        long bound = predicted.get("error_bound").asLong();
        System.out.printf("simulation: %d checks over %d s; predicted %d denied (error bound %d); the stricter rule then denied %d"
                        + " (busy key %d, quiet key %d); recorded as denied %d; its own replay of that traffic %d%n",
                predicted.get("checks").asLong(), predicted.get("span").asLong(), prediction, bound, actual, strict[0], strict[1],
                recorded.get("denied_now").asLong(), recorded.get("denied_proposed").asLong());
        assertThat(actual).as("actual denials within the stated error of the prediction").isBetween(prediction - bound, prediction + bound);
        assertThat(recorded.get("denied_now").asLong()).as("the pods record what they denied").isEqualTo(actual);
    }
}
