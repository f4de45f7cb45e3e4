package dev.tollgate.devstack;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * How the propagation tests see a change reach a pod: by its verdicts on keys probed so that no local answer can
 * hide the change. The deny cache remembers a "no" per key for up to a second, so a change from deny to allow is
 * probed on keys never denied before, each drained beforehand by a single allowed check on a bucket of one token an
 * hour. That check leaves only the store's hold (the bucket is empty) in the pod's deny cache, trusted for at most a
 * second: a key drained less than a second before the change may add that second.
 */
final class Probes {

    static final String DOMAIN = "public-api";
    /** One token an hour, a bucket of one: a key's first check empties it for the rest of the test. */
    static final String STRICT = "\"rate_per_s\":1,\"period_s\":3600,\"burst\":1";
    /** How long a probe keeps trying, past the 2 s the tests assert, so that a slow result is still measured. */
    static final Duration PROBE_FOR = Duration.ofSeconds(3);
    /** Enough fresh keys to probe one pod for {@link #PROBE_FOR}. */
    static final int KEYS_PER_POD = 180;
    private static final long PROBE_PAUSE_MS = 15;

    private Probes() {
    }

    static String tokenBucket(String limit) {
        return "{\"domain\":\"" + DOMAIN + "\",\"match\":{\"plan\":\"growth\"},\"algorithm\":\"token_bucket\"," + limit + "}";
    }

    /**
     * Fresh keys whose bucket (burst 1, one token an hour) each single check empties: the next check of any
     * of them is a deny, from the store or, within a second, from the hold the emptying check left in the pod.
     */
    static List<String> drained(Pod pod, String rule, int count) {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String key = freshKey();
            String verdict = pod.verdict(DOMAIN, rule, key);
            if (!verdict.equals("allow")) {
                throw new AssertionError(pod + " answered " + verdict + " to the first check of the fresh key " + key + " of " + rule);
            }
            keys.add(key);
        }
        return keys;
    }

    static String freshKey() {
        return "acct_" + UUID.randomUUID().toString().substring(0, 13);
    }

    /** Milliseconds from {@code sentNanos} until the pod first answers {@code expected}, each probe on the next key. */
    static long untilVerdict(Pod pod, String rule, Iterator<String> keys, String expected, long sentNanos) {
        return until(pod, rule, () -> keys.hasNext() ? pod.verdict(DOMAIN, rule, keys.next()) : null, expected, sentNanos);
    }

    /** Milliseconds from {@code sentNanos} until {@code probe} (one probe of the pod; null when it has no keys left) answers {@code expected}. */
    static long until(Pod pod, String rule, Supplier<String> probe, String expected, long sentNanos) {
        int probes = 0;
        String last = null;
        while (true) {
            String verdict = probe.get();
            if (verdict == null) {
                break;
            }
            last = verdict;
            probes++;
            long elapsed = Duration.ofNanos(System.nanoTime() - sentNanos).toMillis();
            if (last.equals(expected)) {
                return elapsed;
            }
            if (elapsed > PROBE_FOR.toMillis()) {
                break;
            }
            sleepMs(PROBE_PAUSE_MS);
        }
        throw new AssertionError(pod + " still answered " + last + " for " + rule + " after " + probes + " probes over "
                + Duration.ofNanos(System.nanoTime() - sentNanos).toMillis() + " ms");
    }

    static void awaitTrue(Duration timeout, String what, Supplier<Boolean> condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                if (condition.get()) {
                    return;
                }
            } catch (RuntimeException | AssertionError e) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("gave up waiting for " + what, e);
                }
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("gave up after " + timeout.toMillis() + " ms waiting for " + what);
            }
            sleepMs(100);
        }
    }

    static void sleepMs(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
