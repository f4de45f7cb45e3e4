package dev.tollgate.bench.load;

import org.HdrHistogram.Histogram;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * Keeps a fixed number of checks in flight for a bounded time: a throughput test, the way the design's
 * figures were taken (Lettuce async, 64 in flight). One thread issues; answers free a slot from whatever
 * thread completes them. Latency here is service time under that concurrency, not open-loop latency.
 */
public final class ClosedLoop {

    private final Timeline timeline;
    private final int inFlight;

    public ClosedLoop(Timeline timeline, int inFlight) {
        this.timeline = timeline;
        this.inFlight = inFlight;
    }

    /**
     * Issues checks until {@code seconds} of the run have passed, then waits at most {@code drainSeconds}
     * for the last answers.
     *
     * @param latency  records checks issued from {@code measureFromSeconds} on
     * @return checks that had not answered when the drain ended (counted as timeouts)
     */
    public int run(double seconds, double measureFromSeconds, double drainSeconds, Histogram latency,
                   Supplier<CompletableFuture<Answer>> next) {
        Semaphore slots = new Semaphore(inFlight);
        long start = timeline.startNanos();
        long end = start + (long) (seconds * 1e9);
        long measureFrom = start + (long) (measureFromSeconds * 1e9);
        while (System.nanoTime() < end) {
            try {
                if (!slots.tryAcquire(5, TimeUnit.MILLISECONDS)) {
                    continue;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            long issued = System.nanoTime();
            timeline.add(Timeline.Series.SENT, issued);
            CompletableFuture<Answer> answer;
            try {
                answer = next.get();
            } catch (RuntimeException e) {
                answer = CompletableFuture.failedFuture(e);
            }
            answer.whenComplete((value, error) -> {
                long done = System.nanoTime();
                timeline.answered(issued, error != null || value == null ? Answer.FAILED : value);
                if (latency != null && issued >= measureFrom) {
                    latency.recordValue(Math.max(0, Math.min(latency.getHighestTrackableValue(), done - issued)));
                }
                slots.release();
            });
        }
        long deadline = System.nanoTime() + (long) (drainSeconds * 1e9);
        while (slots.availablePermits() < inFlight && System.nanoTime() < deadline) {
            LockSupport.parkNanos(1_000_000);
        }
        return inFlight - slots.availablePermits();
    }
}
