package dev.tollgate.check.chaos;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Moments when the test's JVM as a whole did not run: a thread that asks to sleep a few milliseconds and wakes much
 * later saw a GC pause or a starved CPU (the suite shares 2 cores with other builds). The pods live in this JVM, so
 * such a stall delays their store calls past the command timeout exactly like a slow shard would, on every shard at
 * once. The {@link Ledger} counts each as a fault of the box, so that its fail-mode answers are not blamed on the
 * code, and the report says how many there were. A pod that stalls on its own (a blocked event loop) does not stop
 * this thread, so it is not excused.
 */
final class BoxStalls implements AutoCloseable {

    private static final long TICK_MS = 5;

    record Stall(long startNanos, long endNanos) {

        long millis() {
            return (endNanos - startNanos) / 1_000_000;
        }
    }

    private final Duration threshold;
    private final List<Stall> stalls = new CopyOnWriteArrayList<>();
    private final Thread thread;
    private volatile boolean running = true;

    /** @param threshold the shortest stall counted (see {@link Pods.Timing#stallThreshold()}); above the watch's tick */
    BoxStalls(Duration threshold) {
        if (threshold.toMillis() <= 2 * TICK_MS) {
            throw new IllegalArgumentException("a stall of " + threshold.toMillis() + " ms is within the watch's " + TICK_MS + " ms sleep and its wake-up");
        }
        this.threshold = threshold;
        thread = new Thread(this::watch, "chaos-stall-watch");
        thread.setDaemon(true);
        thread.setPriority(Thread.MAX_PRIORITY);
        thread.start();
    }

    private void watch() {
        long thresholdNanos = threshold.toNanos();
        long before = System.nanoTime();
        while (running) {
            try {
                Thread.sleep(TICK_MS);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            if (now - before > thresholdNanos) {
                stalls.add(new Stall(before, now));
            }
            before = now;
        }
    }

    List<Stall> stalls() {
        return List.copyOf(stalls);
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
    }
}
