package dev.tollgate.testsupport.fuzz;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * What a fuzz run saw: cases, answers by status, the slowest answer and the heap before and after.
 * The service runs in this JVM, so the heap measured is the service's (plus the test's few objects).
 */
final class FuzzFigures {

    private final String name;
    private final Map<Integer, Integer> statuses = new TreeMap<>();
    private final Map<String, Integer> kinds = new TreeMap<>();
    private long started;
    private long heapBefore;
    private long slowestNanos;
    private String slowest = "";
    private int cases;
    private String previous = "none";
    private boolean failed;
    private final List<String> stalls = new ArrayList<>();

    FuzzFigures(String name) {
        this.name = name;
    }

    void start() {
        heapBefore = usedHeapAfterGc();
        started = System.nanoTime();
    }

    void answered(FuzzCall call, int status, long nanos) {
        previous = call.describe() + " -> " + status;
        cases++;
        statuses.merge(status, 1, Integer::sum);
        kinds.merge(call.kind(), 1, Integer::sum);
        if (nanos > slowestNanos) {
            slowestNanos = nanos;
            slowest = call.kind() + " -> " + status;
        }
    }

    /** A case answered only on its second try (see {@link FuzzRun}). */
    void stalled(FuzzCall call) {
        stalls.add(call.kind() + " at case " + cases + " (the case before: " + previous + ")");
    }

    int stalls() {
        return stalls.size();
    }

    void fail() {
        failed = true;
    }

    boolean failed() {
        return failed;
    }

    int cases() {
        return cases;
    }

    long heapBefore() {
        return heapBefore;
    }

    /** Ends the run: the report line, with the heap measured after a full collection. */
    String finish(long heapAfter) {
        long seconds = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        return String.format("%s: %d cases in %.1f s; slowest answer %.1f ms (%s); answered only on a second try: %s; "
                        + "heap after GC %d MB before, %d MB after; statuses %s; kinds %s",
                name, cases, seconds / 1000.0, slowestNanos / 1e6, slowest, stalls.isEmpty() ? "none" : stalls,
                heapBefore >> 20, heapAfter >> 20, statuses, kinds);
    }

    /** Used heap after collections settle: several rounds, since one System.gc() may leave floating garbage. */
    static long usedHeapAfterGc() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            memory.gc();
            used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
        }
        return used;
    }
}
