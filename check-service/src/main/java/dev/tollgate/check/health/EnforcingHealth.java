package dev.tollgate.check.health;

import dev.tollgate.check.config.CheckProperties;
import dev.tollgate.check.rules.RulesWatcher;
import dev.tollgate.check.warmup.WarmUp;
import dev.tollgate.limiter.Limiter;
import dev.tollgate.store.RedisCounterStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.stereotype.Component;

import java.time.Clock;

/**
 * The readiness group's own member (with Boot's {@code readinessState}): OUT_OF_SERVICE until the pod
 * enforces, see {@link EnforcingGate}. Liveness does not include it: a pod waiting for its rules or its
 * store is alive and must not be restarted.
 */
@Component("enforcingHealthIndicator")
class EnforcingHealth implements HealthIndicator {

    private static final Logger log = LoggerFactory.getLogger(EnforcingHealth.class);

    private final RedisCounterStore store;
    private final Limiter limiter;
    private final RulesWatcher watcher;
    private final WarmUp warmUp;
    private final Clock clock;
    private final EnforcingGate gate;

    EnforcingHealth(RedisCounterStore store, Limiter limiter, CheckProperties properties, ObjectProvider<RulesWatcher> watcher,
                    ObjectProvider<WarmUp> warmUp, Clock clock) {
        this.store = store;
        this.warmUp = warmUp.getIfAvailable();
        this.limiter = limiter;
        this.watcher = watcher.getIfAvailable();
        this.clock = clock;
        this.gate = new EnforcingGate(store.status().since(), properties.readiness().storeGrace());
    }

    @Override
    public Health health() {
        boolean holdsRules = watcher == null || watcher.holdsRules();
        RedisCounterStore.ConnectionStatus connection = store.status();
        // reached, and the engine readied against it: when the store's first connect attempt failed (a pod started before
        // its cluster, or starved of CPU), that happens after the connection, and a check before it could fail open
        boolean enforcing = connection.connected() && limiter.prepared();
        EnforcingGate.Warmth warm = warmUp == null ? EnforcingGate.Warmth.NONE : new EnforcingGate.Warmth(warmUp.done(), warmUp.state());
        EnforcingGate.Verdict verdict = gate.check(holdsRules, enforcing, warm, clock.instant());
        if (verdict.becameReady()) {
            if (enforcing) {
                log.info("ready: enforcing, with rules and the counter store");
            } else {
                log.warn("ready in fallback: the counter store has not been reached ({}); every rule answers by its fail mode "
                        + "until it is (tollgate_store_connected is 0)", connection.lastError());
            }
        }
        Health.Builder health = Health.status(verdict.ready() ? Status.UP : Status.OUT_OF_SERVICE)
                .withDetail("mode", verdict.mode())
                .withDetail("rules", watcher == null ? "static rules file" : watcher.holdsRules() ? "snapshot applied" : "none yet")
                .withDetail("warmUp", warm.state());
        if (!verdict.waitingFor().isEmpty()) {
            health.withDetail("waitingFor", verdict.waitingFor());
        }
        return health.build();
    }
}
