package dev.tollgate.rules.metrics;

import dev.tollgate.rules.change.StoreChanged;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
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
    public static final String WATCH_ANSWER_BYTES = "tollgate.rules.watch.answer.bytes";
    public static final String WATCH_ANSWERS_OVER_CAP = "tollgate.rules.watch.answers.over.cap";
    public static final String WATCH_ANSWERS_BUILT = "tollgate.rules.watch.answers.built";
    public static final String WATCH_ANSWERS_HELD = "tollgate.rules.watch.answers.held";
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

    /** One watch answer sent, by kind (delta, snapshot, legacy: an older pod's bare snapshot), as JSON before compression. */
    public void watchAnswerSent(String kind, int bytes) {
        DistributionSummary.builder(WATCH_ANSWER_BYTES).baseUnit("bytes")
                .description("Watch answers sent to pods, as JSON before compression")
                .tag("kind", kind).register(registry).record(bytes);
    }

    /** An answer not built for being past tollgate.watch.max-answer-size (a delta then becomes a snapshot). */
    public void watchAnswerOverCap(String kind) {
        Counter.builder(WATCH_ANSWERS_OVER_CAP).description("Watch answers past tollgate.watch.max-answer-size, by kind")
                .tag("kind", kind).register(registry).increment();
    }

    /**
     * One watch answer read from the store and written, by kind: every other answer sent was shared, so
     * this against {@link #WATCH_ANSWER_BYTES}' count says how well the pods' questions are shared.
     */
    public void watchAnswerBuilt(String kind) {
        Counter.builder(WATCH_ANSWERS_BUILT).description("Watch answers read from the store and written as JSON, by kind")
                .tag("kind", kind).register(registry).increment();
    }

    /** The watch answers kept for the pods that ask them next; bounded, whatever the pods ask. */
    public void watchAnswersHeld(Supplier<Number> held) {
        Gauge.builder(WATCH_ANSWERS_HELD, held).description("Watch answers held for sharing").register(registry);
    }

    /** One usage read of the counter store, by outcome (ok, unavailable). */
    public void usageRead(String outcome) {
        Counter.builder(USAGE_READS).description("Usage reads of the region's counter store")
                .tag("outcome", outcome).register(registry).increment();
    }
}
