package dev.tollgate.check.health;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Whether a pod is ready, meaning it enforces at full speed: it holds rules, it has reached its counter
 * store since it started, and its warm-up, when one is on, is over. A pod that never reaches its store becomes ready in fallback once the grace
 * is over (unless the grace is negative), so that a region restarted during a Redis outage still serves.
 *
 * <p>Once ready, always ready: the inputs only ever go one way (a snapshot is never taken back, a store
 * once reached stays counted), and a later store outage must not pull every pod of the region at once.
 */
final class EnforcingGate {

    private final Instant started;
    private final Duration storeGrace;
    private volatile boolean ready;

    /**
     * @param started    when the pod started trying its store
     * @param storeGrace how long to wait for the store before serving in fallback; negative: for ever
     */
    EnforcingGate(Instant started, Duration storeGrace) {
        this.started = started;
        this.storeGrace = storeGrace;
    }

    /**
     * @param holdsRules   whether the pod has rules to enforce (always, for a static rules file)
     * @param storeReached whether the pod has reached its counter store since it started
     * @param warm         whether its warm-up is over (or off), or what it is doing
     */
    Verdict check(boolean holdsRules, boolean storeReached, Warmth warm, Instant now) {
        List<String> waitingFor = new ArrayList<>(3);
        if (!warm.done()) {
            waitingFor.add("the warm-up (" + warm.state() + ")");
        }
        if (!holdsRules) {
            waitingFor.add("a rules snapshot from rules-service (none saved or fetched yet)");
        }
        if (!storeReached && !graceOver(now)) {
            waitingFor.add(storeGrace.isNegative()
                    ? "the counter store (tollgate.readiness.store-grace is negative: no fallback start)"
                    : "the counter store, or the end of the fallback grace at " + started.plus(storeGrace));
        }
        boolean nowReady = ready || waitingFor.isEmpty();
        boolean becameReady = nowReady && !ready;
        ready = nowReady;
        String mode = storeReached ? "enforcing"
                : "fallback: the counter store has not been reached since start; every rule answers by its fail mode";
        return new Verdict(nowReady, becameReady, mode, nowReady ? List.of() : List.copyOf(waitingFor));
    }

    private boolean graceOver(Instant now) {
        return !storeGrace.isNegative() && !now.isBefore(started.plus(storeGrace));
    }

    /** Whether the warm-up is over, and what it does or did. */
    record Warmth(boolean done, String state) {

        static final Warmth NONE = new Warmth(true, "off");
    }

    /**
     * @param ready       whether the pod takes traffic
     * @param becameReady whether this check is the one that made it ready
     * @param mode        enforcing, or fallback
     * @param waitingFor  what it still waits for before it is ready
     */
    record Verdict(boolean ready, boolean becameReady, String mode, List<String> waitingFor) {
    }
}
