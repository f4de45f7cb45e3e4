package dev.tollgate.bench.load;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * One run's counts in 10 ms slots, from its start: checks sent (by intended send time), their answers
 * (filed under the intended send time too, so a slow answer still counts for the second it was meant
 * for) and store calls (by the time they were made). Store calls can also be split by a class of key
 * (plan), named by a classifier of the Redis key.
 */
public final class Timeline {

    public static final long SLOT_NANOS = 10_000_000L;
    public static final int SLOTS_PER_SECOND = 100;

    public enum Series { SENT, SHED, ALLOWED, DENIED, FALLBACK, FAILED, STORE_CALLS }

    private final long startNanos;
    private final int slots;
    private final AtomicLongArray[] series = new AtomicLongArray[Series.values().length];
    private final Function<String, String> classifier;
    private final Map<String, LongAdder> storeCallsByClass = new ConcurrentHashMap<>();
    private volatile long classesFromNanos = Long.MIN_VALUE;

    /**
     * @param maxSeconds longest run this timeline records; later events go to the last slot
     * @param classifier names the class of a Redis key for store-call counts by class, or null
     */
    public Timeline(long startNanos, double maxSeconds, Function<String, String> classifier) {
        this.startNanos = startNanos;
        this.slots = (int) Math.ceil(maxSeconds * SLOTS_PER_SECOND) + 1;
        for (int i = 0; i < series.length; i++) {
            series[i] = new AtomicLongArray(slots);
        }
        this.classifier = classifier;
    }

    public long startNanos() {
        return startNanos;
    }

    public void add(Series which, long atNanos) {
        series[which.ordinal()].incrementAndGet(slot(atNanos));
    }

    public void answered(long intendedNanos, Answer answer) {
        switch (answer) {
            case ALLOWED -> add(Series.ALLOWED, intendedNanos);
            case DENIED -> add(Series.DENIED, intendedNanos);
            case FALLBACK_ALLOWED -> {
                add(Series.ALLOWED, intendedNanos);
                add(Series.FALLBACK, intendedNanos);
            }
            case FALLBACK_DENIED -> {
                add(Series.DENIED, intendedNanos);
                add(Series.FALLBACK, intendedNanos);
            }
            case FAILED -> add(Series.FAILED, intendedNanos);
        }
    }

    /** Store calls by class are only counted from this second of the run on (after a warm-up). */
    public void countClassesFrom(double seconds) {
        this.classesFromNanos = startNanos + (long) (seconds * 1e9);
    }

    public void storeCall(String firstRedisKey, long atNanos) {
        add(Series.STORE_CALLS, atNanos);
        if (classifier != null && atNanos >= classesFromNanos) {
            storeCallsByClass.computeIfAbsent(classifier.apply(firstRedisKey), k -> new LongAdder()).increment();
        }
    }

    /** Store calls by class over the whole run (classes are only counted when a classifier was given). */
    public Map<String, Long> storeCallsByClass() {
        Map<String, Long> copy = new java.util.TreeMap<>();
        storeCallsByClass.forEach((k, v) -> copy.put(k, v.sum()));
        return copy;
    }

    /** The sum of a series over [fromSeconds, toSeconds) of the run. */
    public long sum(Series which, double fromSeconds, double toSeconds) {
        AtomicLongArray values = series[which.ordinal()];
        int from = clamp((long) Math.round(fromSeconds * SLOTS_PER_SECOND));
        int to = clamp((long) Math.round(toSeconds * SLOTS_PER_SECOND));
        long total = 0;
        for (int i = from; i < to; i++) {
            total += values.get(i);
        }
        return total;
    }

    /** One value per whole second in [fromSecond, toSecond). */
    public long[] perSecond(Series which, int fromSecond, int toSecond) {
        long[] out = new long[Math.max(0, toSecond - fromSecond)];
        for (int s = 0; s < out.length; s++) {
            out[s] = sum(which, fromSecond + s, fromSecond + s + 1);
        }
        return out;
    }

    /** One value per window of {@code windowSeconds} in [fromSeconds, toSeconds), as a rate per second. */
    public double[] ratePerWindow(Series which, double fromSeconds, double toSeconds, double windowSeconds) {
        int n = (int) Math.floor((toSeconds - fromSeconds) / windowSeconds + 1e-9);
        double[] out = new double[Math.max(0, n)];
        for (int i = 0; i < out.length; i++) {
            double from = fromSeconds + i * windowSeconds;
            out[i] = sum(which, from, from + windowSeconds) / windowSeconds;
        }
        return out;
    }

    /** The most of a series in any window of {@code windowSlots} consecutive slots within [fromSeconds, toSeconds). */
    public long peak(Series which, double fromSeconds, double toSeconds, int windowSlots) {
        AtomicLongArray values = series[which.ordinal()];
        int from = clamp((long) Math.round(fromSeconds * SLOTS_PER_SECOND));
        int to = clamp((long) Math.round(toSeconds * SLOTS_PER_SECOND));
        long window = 0;
        long best = 0;
        for (int i = from; i < to; i++) {
            window += values.get(i);
            if (i - from >= windowSlots) {
                window -= values.get(i - windowSlots);
            }
            best = Math.max(best, window);
        }
        return best;
    }

    private int slot(long atNanos) {
        return clamp((atNanos - startNanos) / SLOT_NANOS);
    }

    private int clamp(long slot) {
        return (int) Math.max(0, Math.min(slots - 1, slot));
    }
}
