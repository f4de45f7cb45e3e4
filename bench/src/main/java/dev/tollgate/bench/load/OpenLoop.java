package dev.tollgate.bench.load;

import org.HdrHistogram.Histogram;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Sends checks on a fixed schedule, whatever the answers do: request n is due at
 * {@code start + n / rate}, and its latency is measured from that intended time, not from when it was
 * actually sent, so a stalled sender or a slow store shows up in the latency instead of quietly lowering
 * the load (no coordinated omission).
 *
 * <p>The schedule survives between {@link #runUntil} calls, so a scenario can change the fleet (restart
 * a pod, scale out) at a point of the run without a gap in the load. A cap on requests in flight keeps a
 * stuck store from exhausting memory; requests over it are counted as shed, never silently dropped.
 */
public final class OpenLoop {

    /** Issues request number {@code sequence}; runs on the sender's thread and must not block. */
    @FunctionalInterface
    public interface Sender {
        CompletableFuture<Answer> send(long sequence);
    }

    private static final long HIGHEST_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final long SPIN_NANOS = 80_000;

    private final Timeline timeline;
    private final double ratePerSecond;
    private final Sender sender;
    private final int maxInFlight;
    private final AtomicInteger inFlight = new AtomicInteger();
    private long sequence;
    private long maxLagNanos;
    private long late;
    private volatile Histogram latency;
    private volatile long latencyFromNanos = Long.MAX_VALUE;

    public OpenLoop(Timeline timeline, double ratePerSecond, int maxInFlight, Sender sender) {
        if (!(ratePerSecond > 0)) {
            throw new IllegalArgumentException("rate must be positive, was " + ratePerSecond);
        }
        this.timeline = timeline;
        this.ratePerSecond = ratePerSecond;
        this.maxInFlight = maxInFlight;
        this.sender = sender;
    }

    /** Records the latency of every request due from {@code fromSeconds} of the run on. */
    public void recordLatency(Histogram histogram, double fromSeconds) {
        this.latency = histogram;
        this.latencyFromNanos = timeline.startNanos() + (long) (fromSeconds * 1e9);
    }

    /** Sends every request due before {@code elapsedSeconds} of the run, on schedule; returns when the last is sent. */
    public void runUntil(double elapsedSeconds) {
        long start = timeline.startNanos();
        long end = start + (long) (elapsedSeconds * 1e9);
        while (true) {
            long now = Math.min(System.nanoTime(), end);
            long due = (long) Math.ceil((now - start) * ratePerSecond / 1e9);
            while (sequence < due) {
                issue(sequence++);
            }
            long next = intended(sequence);
            if (next >= end) {
                return;
            }
            long wait = next - System.nanoTime();
            if (wait > SPIN_NANOS) {
                // a parked thread wakes late; wake a little early and spin the rest, so that the sender's own
                // lateness (which counts as latency) stays in the tens of microseconds
                LockSupport.parkNanos(Math.min(wait - SPIN_NANOS, 1_000_000));
            } else if (wait > 0) {
                Thread.onSpinWait();
            }
        }
    }

    /** Waits up to {@code maxSeconds} for the answers still out; returns how many never came. */
    public int drain(double maxSeconds) {
        long deadline = System.nanoTime() + (long) (maxSeconds * 1e9);
        while (inFlight.get() > 0 && System.nanoTime() < deadline) {
            LockSupport.parkNanos(1_000_000);
        }
        return inFlight.get();
    }

    private long intended(long n) {
        return timeline.startNanos() + (long) (n * 1e9 / ratePerSecond);
    }

    /** The most any request was sent after its intended time: how far the sender itself fell behind. */
    public double maxLagSeconds() {
        return maxLagNanos / 1e9;
    }

    /** Requests sent more than 10 ms after their intended time. */
    public long late() {
        return late;
    }

    private void issue(long n) {
        long intended = intended(n);
        long lag = System.nanoTime() - intended;
        maxLagNanos = Math.max(maxLagNanos, lag);
        if (lag > 10_000_000L) {
            late++;
        }
        if (inFlight.get() >= maxInFlight) {
            timeline.add(Timeline.Series.SHED, intended);
            return;
        }
        timeline.add(Timeline.Series.SENT, intended);
        inFlight.incrementAndGet();
        CompletableFuture<Answer> answer;
        try {
            answer = sender.send(n);
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        answer.whenComplete((value, error) -> {
            long done = System.nanoTime();
            timeline.answered(intended, error != null || value == null ? Answer.FAILED : value);
            Histogram histogram = latency;
            if (histogram != null && intended >= latencyFromNanos) {
                histogram.recordValue(Math.max(0, Math.min(HIGHEST_NANOS, done - intended)));
            }
            inFlight.decrementAndGet();
        });
    }

    public static Histogram newHistogram() {
        return new org.HdrHistogram.ConcurrentHistogram(HIGHEST_NANOS, 3);
    }
}
