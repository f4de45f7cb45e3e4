package dev.tollgate.limiter.hotkeys;

import dev.tollgate.store.CounterStore;
import dev.tollgate.store.LuaScript;
import dev.tollgate.store.key.RedisKeys;
import dev.tollgate.store.read.PodHotKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Publishes the pod's top hot keys and slots ({@link HotKeys#report}, {@link PodHotKeys#MAX_ENTRIES} of each) into the
 * region's counter store, next to its heartbeat in the pod registry, for rules-service to merge the fleet's
 * ({@code GET /v1/hot-keys} there). The report lives {@link #TTL}, three of the sketch's windows: a pod that dies or
 * loses the store drops out of the fleet's answer by itself, and a store that misses one publish still has the one
 * before. A failed publish is only logged: the next one, an interval later, replaces it, and nothing on the check's
 * path waits for it.
 *
 * <p>Why through the store rather than rules-service asking every pod: rules-service already reads the region's
 * store, and knows no pod's address; the store is where the registry says which pods are alive.
 */
public final class HotKeysPublisher implements AutoCloseable {

    public static final LuaScript PUBLISH = LuaScript.load("hot_keys_publish");
    public static final Duration TTL = Duration.ofNanos(3 * HotKeys.WINDOW_NANOS);
    /** How often a pod publishes: a fleet's answer is at most this much older than its pods' sketches. */
    public static final Duration INTERVAL = Duration.ofSeconds(2);
    private static final Logger log = LoggerFactory.getLogger(HotKeysPublisher.class);

    private final CounterStore store;
    private final HotKeys hotKeys;
    private final String podId;
    private final String reportKey;
    private final ScheduledExecutorService timer;

    public HotKeysPublisher(CounterStore store, HotKeys hotKeys, String region, String podId, Duration interval) {
        if (interval.isNegative() || interval.isZero() || interval.compareTo(TTL) >= 0) {
            throw new IllegalArgumentException("the hot keys' publish interval must be positive and below their ttl of "
                    + TTL.toSeconds() + " s, was " + interval);
        }
        this.store = store;
        this.hotKeys = hotKeys;
        this.podId = podId;
        this.reportKey = RedisKeys.podHotKeys(region, podId);
        this.timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "hot-keys-publish");
            thread.setDaemon(true);
            return thread;
        });
        timer.scheduleWithFixedDelay(this::publish, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Publishes once and waits: for tests, which cannot wait for the timer. Runs on the timer, after any publish under way. */
    public void publishNow() {
        try {
            timer.submit(this::publish).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    private void publish() {
        try {
            String report = hotKeys.report(podId, PodHotKeys.MAX_ENTRIES).encode();
            store.run(PUBLISH, List.of(reportKey), List.of(report, Long.toString(TTL.toMillis()))).get(2, TimeUnit.SECONDS);
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            log.debug("publishing the hot keys failed; the last report stays until it ages out: {}", e.toString());
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
