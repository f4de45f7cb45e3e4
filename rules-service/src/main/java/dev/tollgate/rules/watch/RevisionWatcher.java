package dev.tollgate.rules.watch;

import dev.tollgate.rules.change.StoreChanged;
import dev.tollgate.rules.metrics.RulesMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.http.CacheControl;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;
import org.springframework.transaction.event.TransactionPhase;
import org.springframework.transaction.event.TransactionalEventListener;
import org.springframework.web.context.request.async.DeferredResult;

import java.time.Clock;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Holds the watch requests that are waiting and wakes them when the store revision moves. A waiter is
 * released when the revision differs from its {@code since}: higher is the normal case, lower means the
 * store was restored from an older copy and the pod must follow (it is sent a snapshot).
 *
 * <p>A waiter registers first and reads the revision served second, while the poller sets that revision
 * first and scans waiters second, so a change can never slip between the two. The poller reads only the
 * revision; what a waiter is sent is built by {@link FeedAnswers}, once per question.
 */
@Component
class RevisionWatcher implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(RevisionWatcher.class);

    private final SnapshotReader reader;
    private final FeedAnswers answers;
    private final WatchTombstones tombstones;
    private final WatchProperties properties;
    private final Clock clock;
    private final RulesMetrics metrics;
    private final Set<Waiter> waiters = ConcurrentHashMap.newKeySet();

    /** The store revision the poller read last; -1 before its first read. */
    private volatile long served = -1;
    private volatile boolean storeReachable = true;
    private volatile ScheduledExecutorService poller;

    RevisionWatcher(SnapshotReader reader, FeedAnswers answers, WatchTombstones tombstones, WatchProperties properties, Clock clock,
                    RulesMetrics metrics) {
        this.reader = reader;
        this.answers = answers;
        this.tombstones = tombstones;
        this.properties = properties;
        this.clock = clock;
        this.metrics = metrics;
        metrics.watchers(waiters::size, () -> served);
    }

    private record Waiter(long since, FeedAnswers.Question question, DeferredResult<ResponseEntity<byte[]>> result) {

        @Override
        public boolean equals(Object other) {
            return this == other;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(this);
        }
    }

    /**
     * Answers at once when there is no {@code since} or the store has moved past it, else when it does or
     * at the timeout.
     *
     * @param region the pod's region: it is sent a delta (or its region's snapshot); none for an older pod,
     *               which is sent the whole snapshot of every region, as before
     */
    DeferredResult<ResponseEntity<byte[]>> watch(Long since, String region) {
        DeferredResult<ResponseEntity<byte[]>> result = new DeferredResult<>(properties.timeout().toMillis());
        if (since == null) {
            // one cheap revision read, so a caller sees a change it has just made
            result.setResult(respond(answers.answer(FeedAnswers.Question.of(null, region), reader.revision())));
            return result;
        }
        Waiter waiter = new Waiter(since, FeedAnswers.Question.of(since, region), result);
        result.onTimeout(() -> {
            waiters.remove(waiter);
            if (storeReachable) {
                result.setResult(ResponseEntity.status(HttpStatus.NOT_MODIFIED).eTag(etag(since)).build());
            } else {
                result.setErrorResult(new DataAccessResourceFailureException("the rules store cannot be reached"));
            }
        });
        result.onCompletion(() -> waiters.remove(waiter));
        waiters.add(waiter);
        long revision = served;
        if (revision < 0) {
            poke();
        } else if (since < revision) {
            release(waiter, revision);
        }
        return result;
    }

    /** The {@code since} of each waiting watch: the revision each pod following this instance has applied. */
    Map<Long, Integer> waitingBySince() {
        Map<Long, Integer> bySince = new TreeMap<>();
        for (Waiter waiter : waiters) {
            bySince.merge(waiter.since(), 1, Integer::sum);
        }
        return bySince;
    }

    /** Runs a poll now: after a change committed through this instance, its watchers need not wait for the next tick. */
    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT)
    void changed(StoreChanged event) {
        poke();
    }

    void poke() {
        ScheduledExecutorService executor = poller;
        if (executor != null) {
            try {
                executor.execute(this::poll);
            } catch (RejectedExecutionException stopping) {
                // shutting down: the waiters are released by stop()
            }
        }
    }

    void poll() {
        try {
            long revision = reader.revision();
            if (revision != served) {
                served = revision;
                answers.forgetBefore(revision);
            }
            if (!storeReachable) {
                log.info("rules store reachable again at revision {}", revision);
                storeReachable = true;
            }
            for (Waiter waiter : waiters) {
                if (waiter.since() != revision) {
                    release(waiter, revision);
                }
            }
        } catch (RuntimeException e) {
            metrics.pollFailed();
            if (storeReachable) {
                log.warn("cannot read the rules store; watchers keep waiting: {}", e.getMessage());
                storeReachable = false;
            }
        }
    }

    private void release(Waiter waiter, long revision) {
        FeedAnswers.Answer answer = answers.answer(waiter.question(), revision);
        if (answer.refusal() != null) {
            waiter.result().setErrorResult(answer.refusal());
        } else {
            waiter.result().setResult(respond(answer));
        }
    }

    private ResponseEntity<byte[]> respond(FeedAnswers.Answer answer) {
        if (answer.refusal() != null) {
            throw answer.refusal();
        }
        metrics.watchAnswerSent(answer.kind(), answer.body().length);
        return ResponseEntity.ok()
                .eTag(etag(answer.revision()))
                .cacheControl(CacheControl.noStore())
                .contentType(MediaType.APPLICATION_JSON)
                .body(answer.body());
    }

    /**
     * Weak: it names the revision, not the bytes, which are gzipped for a pod that asks and plain for one
     * that does not (and Tomcat never compresses a response carrying a strong ETag).
     */
    private static String etag(long revision) {
        return "W/\"" + revision + "\"";
    }

    /** Forgets deletions older than tollgate.watch.keep; every instance does, and the second finds nothing left. */
    private void prune() {
        try {
            long oldest = tombstones.prune(clock.instant().minus(properties.keep()));
            log.debug("watch feed answers deltas from revision {}", oldest);
        } catch (RuntimeException e) {
            log.debug("pruning the watch feed's tombstones failed, next time then: {}", e.toString());
        }
    }

    @Override
    public void start() {
        ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "tollgate-watch-poller");
            thread.setDaemon(true);
            return thread;
        });
        long period = properties.poll().toMillis();
        executor.scheduleWithFixedDelay(this::poll, 0, Math.max(1, period), TimeUnit.MILLISECONDS);
        long pruneEvery = properties.pruneEvery().toMillis();
        executor.scheduleWithFixedDelay(this::prune, pruneEvery, pruneEvery, TimeUnit.MILLISECONDS);
        poller = executor;
    }

    /** Before the web server drains its requests: waiting watchers answer 304 now instead of holding the shutdown. */
    @Override
    public void stop() {
        ScheduledExecutorService executor = poller;
        poller = null;
        if (executor != null) {
            executor.shutdownNow();
        }
        for (Waiter waiter : waiters) {
            waiter.result().setResult(ResponseEntity.status(HttpStatus.NOT_MODIFIED).eTag(etag(waiter.since())).build());
        }
    }

    @Override
    public boolean isRunning() {
        return poller != null;
    }
}
