package dev.tollgate.rebalancer.schedule;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Runs a cycle every period, on a thread of its own, at {@code usage-lag} past each period boundary of
 * the wall clock: with the default 10 s period that is just after a usage window closed and the pods
 * flushed its last second, so every cycle reads a fresh, complete window. Every instance ticks at the
 * same instants, so a standby that finds the lock free takes over within one period.
 */
public final class CycleScheduler implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(CycleScheduler.class);
    /** Past the boundary, so a timer that fires a little early by the wall clock still finds the window closed. */
    static final long SLACK_MS = 50;

    private final RebalanceCycle cycle;
    private final long periodMs;
    private final long lagMs;
    private final Clock clock;
    private ScheduledThreadPoolExecutor executor;
    private volatile boolean running;

    public CycleScheduler(RebalanceCycle cycle, Duration period, Duration lag, Clock clock) {
        this.cycle = cycle;
        this.periodMs = period.toMillis();
        this.lagMs = lag.toMillis();
        this.clock = clock;
    }

    /** The first instant after {@code nowMs} that is {@code lagMs} (plus slack) past a multiple of the period. */
    static long nextRun(long nowMs, long periodMs, long lagMs) {
        long offset = lagMs + SLACK_MS;
        return (Math.floorDiv(nowMs - offset, periodMs) + 1) * periodMs + offset;
    }

    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        executor = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "tollgate-rebalancer");
            thread.setDaemon(true);
            return thread;
        });
        // on stop, the next tick is dropped; a cycle already running is let finish
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        running = true;
        scheduleNext();
        log.info("rebalancing every {} ms, {} ms after each boundary", periodMs, lagMs);
    }

    private void scheduleNext() {
        long now = clock.millis();
        executor.schedule(this::tick, nextRun(now, periodMs, lagMs) - now, TimeUnit.MILLISECONDS);
    }

    private void tick() {
        try {
            cycle.run();
        } catch (RuntimeException e) {
            log.error("rebalancing cycle threw; the next runs as scheduled", e);
        } finally {
            synchronized (this) {
                if (running) {
                    scheduleNext();
                }
            }
        }
    }

    @Override
    public void stop() {
        ScheduledThreadPoolExecutor stopping;
        synchronized (this) {
            if (!running) {
                return;
            }
            running = false;
            stopping = executor;
        }
        // not holding the monitor while waiting: a finishing tick takes it to see that we stopped.
        // A cycle under way is let finish rather than interrupted in the middle of its transaction.
        stopping.shutdown();
        try {
            if (!stopping.awaitTermination(30, TimeUnit.SECONDS)) {
                stopping.shutdownNow();
            }
        } catch (InterruptedException e) {
            stopping.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}
