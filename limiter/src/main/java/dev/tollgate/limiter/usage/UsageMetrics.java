package dev.tollgate.limiter.usage;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.util.concurrent.TimeUnit;

/** The usage recorder's meters, by name. */
final class UsageMetrics {

    static final String FLUSHES = "tollgate.usage.flushes";
    static final String FLUSH_DURATION = "tollgate.usage.flush.duration";
    static final String KEYS_FLUSHED = "tollgate.usage.keys.flushed";
    static final String KEYS_DROPPED = "tollgate.usage.keys.dropped";

    private final Counter flushedOk;
    private final Counter flushFailed;
    private final Timer flushDuration;
    private final Counter keysFlushed;
    private final Counter droppedOverCap;
    private final Counter droppedFlushFailed;
    private final Counter droppedInvalid;

    UsageMetrics(MeterRegistry registry) {
        flushedOk = flushes(registry, "ok");
        flushFailed = flushes(registry, "failed");
        flushDuration = Timer.builder(FLUSH_DURATION).description("Time to write one interval's usage to Redis").register(registry);
        keysFlushed = Counter.builder(KEYS_FLUSHED).description("(rule, key) counts written to the region's usage windows")
                .register(registry);
        droppedOverCap = dropped(registry, "cap", "admitted entries not counted: the interval already held its maximum of distinct keys");
        droppedFlushFailed = dropped(registry, "flush_failed", "(rule, key) counts lost because Redis did not take them in time");
        droppedInvalid = dropped(registry, "invalid_rule", "(rule, key) counts whose rule id cannot be named in a field");
    }

    private static Counter flushes(MeterRegistry registry, String outcome) {
        return Counter.builder(FLUSHES).description("Usage flushes to Redis, by outcome").tag("outcome", outcome).register(registry);
    }

    private static Counter dropped(MeterRegistry registry, String reason, String description) {
        return Counter.builder(KEYS_DROPPED).description("Usage dropped (advisory data): " + description)
                .tag("reason", reason).register(registry);
    }

    void overCap() {
        droppedOverCap.increment();
    }

    void invalid(long fields) {
        droppedInvalid.increment(fields);
    }

    void flushed(long fields, long nanos) {
        flushedOk.increment();
        keysFlushed.increment(fields);
        flushDuration.record(nanos, TimeUnit.NANOSECONDS);
    }

    /** Some or all of a flush's writes failed: the failed ones' counts are lost, the others stored. */
    void flushFailed(long fieldsLost, long fieldsStored, long nanos) {
        flushFailed.increment();
        droppedFlushFailed.increment(fieldsLost);
        keysFlushed.increment(fieldsStored);
        flushDuration.record(nanos, TimeUnit.NANOSECONDS);
    }
}
