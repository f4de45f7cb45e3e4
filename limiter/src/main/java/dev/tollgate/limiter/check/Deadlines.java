package dev.tollgate.limiter.check;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Bounds a store call by its check's deadline. The JDK's delayer thread, one for the whole JVM, only fires
 * the deadline; what follows it (the fail mode, the response and, in check-service, its JSON and write)
 * runs on a small pool, so that a frozen shard's burst of deadlines neither queues behind that one thread
 * nor delays every other timer of the JVM. A call answered in time is turned into its answer
 * on the thread that brought the reply, with no hop, and cancels its timer.
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
        CompletableFuture<Void> timer = new CompletableFuture<Void>().completeOnTimeout(null, nanos, TimeUnit.NANOSECONDS);
        // a cancelled timer completes this exceptionally without handing anything to the pool
        timer.thenRunAsync(() -> answer.complete(pastDeadline), Pool.CONTINUATIONS);
        // cancelling the timer takes its task off the delayer's queue
        answer.whenComplete((outcome, error) -> timer.cancel(false));
        return answer;
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
