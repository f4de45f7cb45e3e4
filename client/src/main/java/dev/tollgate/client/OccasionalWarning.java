package dev.tollgate.client;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * At most one warning per interval for a condition that may hold on every check (no pod known): the first occurrence
 * warns at once, later ones are counted into the next warning, so a log at 10,000 checks a second stays one line per
 * interval and still says how many checks it stands for.
 */
final class OccasionalWarning {

    private final long everyNanos;
    private final LongSupplier nanoTime;
    private final AtomicLong next;
    private final AtomicLong unreported = new AtomicLong();

    OccasionalWarning(Duration every, LongSupplier nanoTime) {
        this.everyNanos = every.toNanos();
        this.nanoTime = nanoTime;
        this.next = new AtomicLong(nanoTime.getAsLong());
    }

    /** Counts one occurrence: the occurrences a warning due now stands for (this one included), or 0 when none is due. */
    long occurred() {
        unreported.incrementAndGet();
        long now = nanoTime.getAsLong();
        long due = next.get();
        if (now - due < 0 || !next.compareAndSet(due, now + everyNanos)) {
            return 0;
        }
        return unreported.getAndSet(0);
    }
}
