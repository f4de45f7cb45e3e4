package dev.tollgate.devstack;

import dev.tollgate.devstack.demo.AdminClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.UUID;

import static dev.tollgate.devstack.Probes.DOMAIN;
import static dev.tollgate.devstack.Probes.KEYS_PER_POD;
import static dev.tollgate.devstack.Probes.STRICT;
import static dev.tollgate.devstack.Probes.awaitTrue;
import static dev.tollgate.devstack.Probes.drained;
import static dev.tollgate.devstack.Probes.freshKey;
import static dev.tollgate.devstack.Probes.sleepMs;
import static dev.tollgate.devstack.Probes.tokenBucket;
import static dev.tollgate.devstack.Probes.until;
import static dev.tollgate.devstack.Probes.untilVerdict;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A canary rollout on the dev stack's two pods, of which the second is a canary pod (the stack's default): a rule's
 * canary is enforced by the canary pod only, and within the propagation time (2 s, as {@link RulesPropagationIT}
 * holds every change to); the other pod keeps the rule as promoted until the promote reaches it; and a second
 * canary rolled back leaves the canary pod on the promoted version again within the propagation time. Each step is
 * read from the pods' verdicts on keys of their own ({@link Probes}), each pod probed on its own port.
 */
class CanaryRolloutIT {

    private static final Duration PROPAGATION = Duration.ofSeconds(2);
    private static final String RAISED = "\"rate_per_s\":1000,\"burst\":1000";
    /** How long the other pod is watched for a verdict of the canary's, once the canary pod enforces it. */
    private static final Duration NEVER_FOR = Duration.ofSeconds(1);
    /**
     * A check that takes a bucket's last token leaves the store's hold in the pod's deny cache, trusted for up to its
     * ttl (1 s), which a changed limit waits out too: the drained keys rest that long first, so that what is timed is
     * the change reaching the pod.
     */
    private static final long DENY_CACHE_TTL_MS = 1_000;

    private static DevStack stack;
    private static AdminClient admin;
    private static Pod stable;
    private static Pod canary;

    @BeforeAll
    static void start() {
        stack = DevStack.start("--check-port=" + Pod.freePort(), "--extra-check-port=" + Pod.freePort(), "--rules-port=" + Pod.freePort(),
                "--rebalancer-port=" + Pod.freePort(), "--no-demo-rules");
        assertThat(stack.options().canaryPod(1)).as("the stack's second pod is its canary pod").isTrue();
        admin = stack.admin();
        stable = Pod.of("pod A", stack.checkServices().get(0));
        canary = Pod.of("canary pod B", stack.checkServices().get(1));
    }

    @AfterAll
    static void stop() {
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    void aCanaryIsEnforcedByTheCanaryPodOnlyUntilPromotedAndARollbackRestoresTheRuleOnIt() {
        String rule = "canaried-" + UUID.randomUUID().toString().substring(0, 8);
        AdminClient.Response created = admin.put("/v1/rules/" + rule, tokenBucket(STRICT), null);
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        awaitTrue(Duration.ofSeconds(5), "both pods to know " + rule, () -> stable.knows(DOMAIN, rule) && canary.knows(DOMAIN, rule));

        // a raised canary: the canary pod admits keys the rule has drained, the other pod goes on denying them
        List<String> stableKeys = drained(stable, rule, KEYS_PER_POD);
        List<String> canaryKeys = drained(canary, rule, KEYS_PER_POD);
        sleepMs(DENY_CACHE_TTL_MS + 100);
        long sent = System.nanoTime();
        AdminClient.Response written = admin.put("/v1/rules/" + rule + "?rollout=canary", withReason(tokenBucket(RAISED)), "\"1\"");
        assertThat(written.status()).as(written.body()).isEqualTo(201);
        assertThat(written.etag()).isEqualTo("\"2\"");
        long canaryMs = untilVerdict(canary, rule, canaryKeys.iterator(), "allow", sent);
        Iterator<String> stableProbes = stableKeys.iterator();
        assertNeverAllowed(stable, rule, stableProbes);

        // promoted: the other pod enforces it too, and the canary pod keeps it
        sent = System.nanoTime();
        AdminClient.Response promoted = admin.post("/v1/rules/" + rule + ":promote", withReason("{}"), written.etag());
        assertThat(promoted.status()).as(promoted.body()).isEqualTo(200);
        assertThat(promoted.etag()).isEqualTo("\"2\"");
        long promotedMs = untilVerdict(stable, rule, stableProbes, "allow", sent);
        assertThat(canary.verdict(DOMAIN, rule, freshKey())).isEqualTo("allow");

        // a second canary, strict again, is in force on the canary pod only; rolled back, the canary pod admits again
        AdminClient.Response second = admin.put("/v1/rules/" + rule + "?rollout=canary", withReason(tokenBucket(STRICT)), promoted.etag());
        assertThat(second.status()).as(second.body()).isEqualTo(201);
        assertThat(second.etag()).isEqualTo("\"3\"");
        until(canary, rule, () -> secondCheckOfAFreshKey(canary, rule), "deny", System.nanoTime());
        for (int i = 0; i < 5; i++) {
            assertThat(secondCheckOfAFreshKey(stable, rule)).as("%s keeps the promoted version", stable).isEqualTo("allow");
        }
        List<String> drainedByTheCanary = drained(canary, rule, KEYS_PER_POD);
        sleepMs(DENY_CACHE_TTL_MS + 100);
        sent = System.nanoTime();
        AdminClient.Response rolledBack = admin.post("/v1/rules/" + rule + ":rollback", withReason("{}"), second.etag());
        assertThat(rolledBack.status()).as(rolledBack.body()).isEqualTo(200);
        assertThat(rolledBack.etag()).as("the rule as promoted").isEqualTo("\"2\"");
        long rollbackMs = untilVerdict(canary, rule, drainedByTheCanary.iterator(), "allow", sent);
        assertThat(secondCheckOfAFreshKey(stable, rule)).isEqualTo("allow");

        System.out.printf("canary enforced by the canary pod in %d ms (the other pod still denied %d ms later), promote reached the"
                + " other pod in %d ms, rollback the canary pod in %d ms (propagation time: %d ms)%n",
                canaryMs, NEVER_FOR.toMillis(), promotedMs, rollbackMs, PROPAGATION.toMillis());
        assertThat(canaryMs).as("canary to the canary pod, ms").isLessThan(PROPAGATION.toMillis());
        assertThat(promotedMs).as("promote to the other pod, ms").isLessThan(PROPAGATION.toMillis());
        assertThat(rollbackMs).as("rollback to the canary pod, ms").isLessThan(PROPAGATION.toMillis());
    }

    /** The pod denies every drained key it is asked for {@link #NEVER_FOR}, while the canary pod enforces the canary. */
    private static void assertNeverAllowed(Pod pod, String rule, Iterator<String> keys) {
        long until = System.nanoTime() + NEVER_FOR.toNanos();
        int probes = 0;
        while (System.nanoTime() < until) {
            assertThat(pod.verdict(DOMAIN, rule, keys.next())).as("%s never enforces the canary (probe %d)", pod, probes).isEqualTo("deny");
            probes++;
            sleepMs(20);
        }
        assertThat(probes).isPositive();
    }

    /** The second check of a key never checked before: a deny under a bucket of one, an allow under a raised rule. */
    private static String secondCheckOfAFreshKey(Pod pod, String rule) {
        String key = freshKey();
        pod.verdict(DOMAIN, rule, key);
        return pod.verdict(DOMAIN, rule, key);
    }

    private static String withReason(String body) {
        return body.substring(0, body.length() - 1) + (body.length() > 2 ? "," : "") + "\"reason\":\"canary rollout test\"}";
    }
}
