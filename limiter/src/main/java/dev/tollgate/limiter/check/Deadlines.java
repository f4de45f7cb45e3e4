package dev.tollgate.limiter.check;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Bounds a store call by its check's deadline. One timer thread, shared by the whole JVM, only fires the
 * deadline; what follows it (the fail mode, the response and, in check-service, its JSON and write) runs on a
 * small pool, so that a frozen shard's burst of deadlines neither queues behind that one thread nor delays any
 * other timer. A call answered in time is turned into its answer on the thread that brought the reply, with no
 * hop, and cancels its timer.
 *
 * <p>The timer is a plain scheduled task, not a {@code CompletableFuture} with {@code completeOnTimeout}: cancelling
 * such a future completes it, and each of its dependents, with a fresh exception and its stack trace (three per
 * call, 30% of the bytes a store-bound check allocated, issue 29); cancelling a scheduled task only marks it.
 */
final class Deadlines {

    private static final AtomicInteger THREADS = new AtomicInteger();

    /**
     * Shared by every engine of the JVM, as the delayer is (a bench fleet builds many engines): at most one
     * thread per core, each gone after a quiet half minute. Never shut down and never full (its queue holds
     * one task per key group past its deadline, so the checks in flight bound it): it refuses no task, and
     * every check completes.
     */
    private static final class Pool {
        static final ThreadPoolExecutor CONTINUATIONS = continuations(Math.max(2, Runtime.getRuntime().availableProcessors()));
    }

    /** The deadlines' one timer thread, started by the first check that waits on the store. */
    private static final class Timer {
        static final ScheduledThreadPoolExecutor DEADLINES = timer();
    }

    private Deadlines() {
    }

    /**
     * {@code call}'s outcome, or {@code pastDeadline} once {@code nanos} have passed. {@code call} itself is
     * never completed here: its own bookkeeping (the breaker, a late lease grant) runs whenever it ends.
     */
    static <T> CompletableFuture<T> within(CompletableFuture<T> call, long nanos, T pastDeadline) {
        CompletableFuture<T> answer = call.copy();
        if (answer.isDone()) {
            return answer;
        }
        // the timer thread only hands the fail mode to the pool; a cancelled task never runs
        ScheduledFuture<?> timer = Timer.DEADLINES.schedule(() -> Pool.CONTINUATIONS.execute(() -> answer.complete(pastDeadline)),
                nanos, TimeUnit.NANOSECONDS);
        // cancelling the timer takes its task off the timer's queue
        answer.whenComplete((outcome, error) -> timer.cancel(false));
        return answer;
    }

    private static ScheduledThreadPoolExecutor timer() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "tollgate-timer");
            thread.setDaemon(true);
            return thread;
        });
        // as the JDK's delayer: a call answered in time leaves nothing queued behind it
        timer.setRemoveOnCancelPolicy(true);
        return timer;
    }

    private static ThreadPoolExecutor continuations(int threads) {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), task -> {
            Thread thread = new Thread(task, "tollgate-deadline-" + THREADS.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }
}
