package dev.tollgate.rules.metrics;

import dev.tollgate.rules.store.StoreChanged;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.stereotype.Component;
import org.springframework.transaction.event.TransactionPhase;
import org.springframework.transaction.event.TransactionalEventListener;

import java.util.Locale;
import java.util.function.Supplier;

/** Every meter rules-service registers. Names follow Micrometer's dotted style; Prometheus shows them with underscores. */
@Component
public class RulesMetrics {

    public static final String CHANGES = "tollgate.rules.changes";
    public static final String WATCH_WAITERS = "tollgate.rules.watch.waiters";
    public static final String WATCH_REVISION = "tollgate.rules.watch.revision";
    public static final String WATCH_POLL_FAILURES = "tollgate.rules.watch.poll.failures";
    public static final String USAGE_READS = "tollgate.rules.usage.reads";

    private final MeterRegistry registry;
    private final Counter pollFailures;

    RulesMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.pollFailures = Counter.builder(WATCH_POLL_FAILURES)
                .description("Reads of the store revision that failed (PostgreSQL unreachable)")
                .register(registry);
    }

    /** One committed change, by entity (rule, override) and kind (create, replace, delete, shadow, enforce). */
    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT)
    void changed(StoreChanged change) {
        Counter.builder(CHANGES).description("Changes committed to the rules store")
                .tag("entity", change.entity().name().toLowerCase(Locale.ROOT))
                .tag("kind", change.kind().name().toLowerCase(Locale.ROOT))
                .register(registry).increment();
    }

    public void watchers(Supplier<Number> waiting, Supplier<Number> revision) {
        Gauge.builder(WATCH_WAITERS, waiting).description("Watch requests waiting for a change").register(registry);
        Gauge.builder(WATCH_REVISION, revision).description("The store revision this instance serves").register(registry);
    }

    public void pollFailed() {
        pollFailures.increment();
    }

    /** One usage read of the counter store, by outcome (ok, unavailable). */
    public void usageRead(String outcome) {
        Counter.builder(USAGE_READS).description("Usage reads of the region's counter store")
                .tag("outcome", outcome).register(registry).increment();
    }
}
