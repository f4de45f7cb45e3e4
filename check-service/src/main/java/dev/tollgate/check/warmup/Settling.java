package dev.tollgate.check.warmup;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * When a warm-up may end: the JIT has compiled for less than a quiet amount within the last quiet span, after enough
 * checks that it had something to compile. HotSpot's total compilation time is the measure (the bench's scenario 8
 * judges its servers by the same), read about once a second.
 */
final class Settling {

    private record Reading(long atNanos, long compileMillis) {
    }

    private final long quietNanos;
    private final long quietCompileMillis;
    private final long minChecks;
    private final Deque<Reading> readings = new ArrayDeque<>();

    Settling(Duration quietFor, Duration quietCompile, long minChecks) {
        this.quietNanos = quietFor.toNanos();
        this.quietCompileMillis = quietCompile.toMillis();
        this.minChecks = minChecks;
    }

    /** Takes a reading; answers whether the JIT has settled by it. */
    boolean settled(long atNanos, long checks, long compileMillis) {
        readings.addLast(new Reading(atNanos, compileMillis));
        // keep the newest reading at least a quiet span old, and nothing older
        while (readings.size() > 1) {
            Reading first = readings.removeFirst();
            if (atNanos - readings.peekFirst().atNanos() < quietNanos) {
                readings.addFirst(first);
                break;
            }
        }
        Reading oldest = readings.peekFirst();
        return checks >= minChecks && atNanos - oldest.atNanos() >= quietNanos && compileMillis - oldest.compileMillis() < quietCompileMillis;
    }
}
