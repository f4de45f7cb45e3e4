package dev.tollgate.rules.watch;

import dev.tollgate.common.rule.RuleSnapshot;
import dev.tollgate.rules.metrics.RulesMetrics;
import dev.tollgate.rules.store.StoreChanged;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.http.CacheControl;
import org.springframework.http.HttpStatus;
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
 * Holds the watch requests that are waiting and the latest snapshot, and wakes the waiters when the
 * store revision moves. A waiter is released when the revision differs from its {@code since}: higher
 * is the normal case, lower means the store was restored from an older copy and the pod must follow.
 *
 * <p>A waiter registers first and checks the cached snapshot second, while the poller caches first
 * and scans waiters second, so a change can never slip between the two.
 */
@Component
class RevisionWatcher implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(RevisionWatcher.class);

    private final SnapshotReader reader;
    private final WatchProperties properties;
    private final Clock clock;
    private final RulesMetrics metrics;
    private final Set<Waiter> waiters = ConcurrentHashMap.newKeySet();
    private final Object loading = new Object();

    private volatile RuleSnapshot latest;
    private volatile boolean storeReachable = true;
    private volatile ScheduledExecutorService poller;

    RevisionWatcher(SnapshotReader reader, WatchProperties properties, Clock clock, RulesMetrics metrics) {
        this.reader = reader;
        this.properties = properties;
        this.clock = clock;
        this.metrics = metrics;
        metrics.watchers(waiters::size, () -> latest == null ? -1 : latest.revision());
    }

    private static final class Waiter {
        final long since;
        final DeferredResult<ResponseEntity<RuleSnapshot>> result;

        Waiter(long since, DeferredResult<ResponseEntity<RuleSnapshot>> result) {
            this.since = since;
            this.result = result;
        }
    }

    /** Answers at once when there is no {@code since} or the store has moved past it, else when it does or at the timeout. */
    DeferredResult<ResponseEntity<RuleSnapshot>> watch(Long since) {
        DeferredResult<ResponseEntity<RuleSnapshot>> result = new DeferredResult<>(properties.timeout().toMillis());
        if (since == null) {
            result.setResult(snapshotResponse(current()));
            return result;
        }
        Waiter waiter = new Waiter(since, result);
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
        RuleSnapshot snapshot = latest;
        if (snapshot == null) {
            poke();
        } else if (since < snapshot.revision()) {
            result.setResult(snapshotResponse(snapshot));
        }
        return result;
    }

    /** The {@code since} of each waiting watch: the revision each pod following this instance has applied. */
    Map<Long, Integer> waitingBySince() {
        Map<Long, Integer> bySince = new TreeMap<>();
        for (Waiter waiter : waiters) {
            bySince.merge(waiter.since, 1, Integer::sum);
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
            RuleSnapshot snapshot = latest;
            if (snapshot == null || snapshot.revision() != revision) {
                snapshot = load();
            }
            if (!storeReachable) {
                log.info("rules store reachable again at revision {}", snapshot.revision());
                storeReachable = true;
            }
            for (Waiter waiter : waiters) {
                if (waiter.since != snapshot.revision()) {
                    waiter.result.setResult(snapshotResponse(snapshot));
                }
            }
        } catch (RuntimeException e) {
            metrics.pollFailed();
            if (storeReachable) {
                log.warn("cannot read the store revision; watchers keep waiting: {}", e.getMessage());
                storeReachable = false;
            }
        }
    }

    /** The snapshot as of now: one cheap revision read, so a caller sees a change it has just made. */
    private RuleSnapshot current() {
        RuleSnapshot snapshot = latest;
        return snapshot != null && snapshot.revision() == reader.revision() ? snapshot : load();
    }

    private RuleSnapshot load() {
        synchronized (loading) {
            RuleSnapshot snapshot = reader.read();
            latest = snapshot;
            return snapshot;
        }
    }

    /** Overrides that expired since the snapshot was read are dropped here, so the feed only carries active ones. */
    private ResponseEntity<RuleSnapshot> snapshotResponse(RuleSnapshot snapshot) {
        return ResponseEntity.ok()
                .eTag(etag(snapshot.revision()))
                .cacheControl(CacheControl.noStore())
                .body(snapshot.activeAt(clock.instant()));
    }

    /**
     * Weak: it names the revision, not the bytes, which are gzipped for a pod that asks and plain for one
     * that does not (and Tomcat never compresses a response carrying a strong ETag).
     */
    private static String etag(long revision) {
        return "W/\"" + revision + "\"";
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
            waiter.result.setResult(ResponseEntity.status(HttpStatus.NOT_MODIFIED).eTag(etag(waiter.since)).build());
        }
    }

    @Override
    public boolean isRunning() {
        return poller != null;
    }
}
