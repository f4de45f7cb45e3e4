package dev.tollgate.limiter.pods;

import dev.tollgate.store.CounterStore;
import dev.tollgate.store.LuaScript;
import dev.tollgate.store.key.RedisKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/**
 * The live number of pods in the region, from heartbeats in the region's Redis rather than a
 * configuration constant, so that autoscaling from 50 to 75 pods changes the lease and fallback
 * divisor within a few seconds. Each pod writes its heartbeat every {@code interval} and reads the
 * count back in the same script; a pod that stops beating drops out after {@code ttl}. When the
 * store cannot be reached the last known count stays in force (the design's "last known live count").
 *
 * <p>The count never goes below a configured floor (the HPA's minimum), and
 * starts there: a pod that has not beaten yet, because its store is down, would otherwise size its
 * fallback buckets and leases as if it were the only pod, and N such pods would admit 2N times a
 * limit. A floor above the real count only makes fallback stricter.
 */
public final class PodRegistry implements IntSupplier, AutoCloseable {

    public static final LuaScript HEARTBEAT = LuaScript.load("pod_heartbeat");
    private static final Logger log = LoggerFactory.getLogger(PodRegistry.class);

    private final CounterStore store;
    private final String registryKey;
    private final String podId;
    private final Duration ttl;
    private final ScheduledExecutorService timer;
    private final int floor;
    private volatile int livePods;

    /**
     * @param floor the fewest pods the region runs (at least 1): the count before the first heartbeat,
     *              and the least it ever reports
     */
    public PodRegistry(CounterStore store, String region, String podId, Duration interval, Duration ttl, int floor) {
        if (floor < 1) {
            throw new IllegalArgumentException("the floor of the pod count must be at least 1, was " + floor);
        }
        this.floor = floor;
        this.livePods = floor;
        this.store = store;
        this.registryKey = RedisKeys.podRegistry(region);
        this.podId = podId;
        this.ttl = ttl;
        this.timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "pod-registry");
            thread.setDaemon(true);
            return thread;
        });
        timer.scheduleWithFixedDelay(this::beat, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Beats once and waits for the count: for tests in this package, which cannot wait for the timer.
     * The beat runs on the timer's thread, after any beat already under way, so a slower earlier reply
     * cannot land after this one and put back an older count.
     */
    int beatNow() {
        try {
            timer.submit(this::beat).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
        return livePods;
    }

    private void beat() {
        try {
            List<Long> reply = store.run(HEARTBEAT, List.of(registryKey), List.of(podId, Long.toString(ttl.toMillis())))
                    .get(2, TimeUnit.SECONDS);
            livePods = Math.max(floor, reply.get(0).intValue());
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            log.debug("pod heartbeat failed; keeping the last known count {}: {}", livePods, e.toString());
        }
    }

    /** The id this pod beats under: what the store counts a bucket's lease askers by, and what its hot keys report is named by. */
    public String podId() {
        return podId;
    }

    @Override
    public int getAsInt() {
        return livePods;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
