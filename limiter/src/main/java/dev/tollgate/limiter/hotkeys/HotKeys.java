package dev.tollgate.limiter.hotkeys;

import dev.tollgate.store.key.RedisKeys;
import dev.tollgate.store.read.PodHotKeys;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The keys and slots that took this pod's store calls lately, in bounded memory whatever the number of keys: a
 * space-saving sketch (Metwally et al.) of {@link #CAPACITY} counters per window of {@link #WINDOW_NANOS}, and a
 * count per slot. A key above 1/{@link #CAPACITY} of a window's calls is always in its top, counted within that
 * share ({@link HotKey#error}); a key sprayed by a flood of distinct IPs evicts only the coldest counters. The top is
 * of the window under way and the one before it, so a key that turns hot shows within a window.
 *
 * <p>Recorded once per store call, never per check: a leased or locally denied check costs the store nothing and is
 * not what makes a key hot for a primary.
 */
public final class HotKeys {

    public static final int CAPACITY = 64;
    public static final long WINDOW_NANOS = 10_000_000_000L;
    private static final int SLOTS = 16_384;

    /** One key's store calls in the last one or two windows, over-counted by at most {@code error}. */
    public record HotKey(String key, int slot, long calls, long error) {
    }

    /** One slot's store calls in the same span, and its share of the pod's. */
    public record HotSlot(int slot, long calls, double share) {
    }

    /** A key's count in the window, and its place in the window's heap of counters. */
    private static final class Counter {
        String key;
        long count;
        long error;
        int index;
    }

    private final LongSupplier nanoTime;
    private Map<String, Counter> current = new HashMap<>();
    /**
     * The current window's counters as a min-heap by count: the coldest, which a new key replaces once the window holds
     * {@link #CAPACITY}, is at the root. A scan of all of them on every store call of a key not counted yet (nearly all of
     * them, with many keys) was a few per cent of a store-bound pod's samples.
     */
    private Counter[] heap = new Counter[CAPACITY];
    private Map<String, Counter> previous = Map.of();
    private long[] slots = new long[SLOTS];
    private long[] previousSlots = new long[SLOTS];
    private long windowStart;

    public HotKeys(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
        this.windowStart = nanoTime.getAsLong();
    }

    /** One store call for the limit key {@code key}. */
    public synchronized void record(String key) {
        roll();
        slots[RedisKeys.slot(key)]++;
        Counter counter = current.get(key);
        if (counter != null) {
            counter.count++;
            siftDown(counter);
        } else if (current.size() < CAPACITY) {
            counter = new Counter();
            counter.key = key;
            counter.count = 1;
            siftUp(counter, current.size());
            current.put(key, counter);
        } else {
            // space-saving: the new key takes the coldest counter's place, and inherits its count as its error
            counter = heap[0];
            current.remove(counter.key);
            counter.key = key;
            current.put(key, counter);
            counter.error = counter.count;
            counter.count++;
            siftDown(counter);
        }
    }

    /** Places a new counter, the last of the heap, above the parents that outnumber it. */
    private void siftUp(Counter counter, int at) {
        while (at > 0) {
            int parent = (at - 1) / 2;
            if (heap[parent].count <= counter.count) {
                break;
            }
            heap[at] = heap[parent];
            heap[at].index = at;
            at = parent;
        }
        heap[at] = counter;
        counter.index = at;
    }

    /** Moves a counter whose count grew below the children it now outnumbers (every counter is in the map by then). */
    private void siftDown(Counter counter) {
        int size = current.size();
        int at = counter.index;
        while (true) {
            int child = 2 * at + 1;
            if (child >= size) {
                break;
            }
            if (child + 1 < size && heap[child + 1].count < heap[child].count) {
                child++;
            }
            if (heap[child].count >= counter.count) {
                break;
            }
            heap[at] = heap[child];
            heap[at].index = at;
            at = child;
        }
        heap[at] = counter;
        counter.index = at;
    }

    /** The {@code n} keys with the most store calls in the last one or two windows, hottest first. */
    public synchronized List<HotKey> top(int n) {
        roll();
        Map<String, long[]> merged = new HashMap<>();
        for (Map<String, Counter> window : List.of(previous, current)) {
            window.forEach((key, counter) -> {
                long[] sum = merged.computeIfAbsent(key, k -> new long[2]);
                sum[0] += counter.count;
                sum[1] += counter.error;
            });
        }
        List<HotKey> keys = new ArrayList<>(merged.size());
        merged.forEach((key, sum) -> keys.add(new HotKey(key, RedisKeys.slot(key), sum[0], sum[1])));
        keys.sort(Comparator.comparingLong(HotKey::calls).reversed().thenComparing(HotKey::key));
        return List.copyOf(keys.subList(0, Math.min(n, keys.size())));
    }

    /** The share of the pod's store calls in the same span that its hottest key took; 0 with no calls. */
    public synchronized double hottestKeyShare() {
        List<HotKey> top = top(1);
        long total = 0;
        for (int slot = 0; slot < SLOTS; slot++) {
            total += slots[slot] + previousSlots[slot];
        }
        return top.isEmpty() || total == 0 ? 0 : Math.min(1.0, (double) top.get(0).calls() / total);
    }

    /** The share of the pod's store calls in the same span that its hottest slot took; 0 with no calls. */
    public synchronized double hottestSlotShare() {
        List<HotSlot> top = topSlots(1);
        return top.isEmpty() ? 0 : top.get(0).share();
    }

    /** The {@code n} slots with the most store calls in the same span, hottest first, each with its share of all of them. */
    public synchronized List<HotSlot> topSlots(int n) {
        roll();
        long total = 0;
        long[] calls = new long[SLOTS];
        for (int slot = 0; slot < SLOTS; slot++) {
            calls[slot] = slots[slot] + previousSlots[slot];
            total += calls[slot];
        }
        List<HotSlot> hot = new ArrayList<>();
        for (int slot = 0; slot < SLOTS; slot++) {
            if (calls[slot] > 0) {
                hot.add(new HotSlot(slot, calls[slot], (double) calls[slot] / total));
            }
        }
        hot.sort(Comparator.comparingLong(HotSlot::calls).reversed().thenComparingInt(HotSlot::slot));
        return List.copyOf(hot.subList(0, Math.min(n, hot.size())));
    }

    /**
     * The pod's top {@code n} keys and slots and all its store calls in the same span, taken together so that the
     * shares a reader computes from them agree: what {@link HotKeysPublisher} publishes for the fleet's merge.
     */
    public synchronized PodHotKeys report(String pod, int n) {
        List<PodHotKeys.Key> keys = top(n).stream()
                .map(key -> new PodHotKeys.Key(key.key(), key.slot(), key.calls(), key.error())).toList();
        List<PodHotKeys.Slot> hot = topSlots(n).stream().map(slot -> new PodHotKeys.Slot(slot.slot(), slot.calls())).toList();
        long total = 0;
        for (int slot = 0; slot < SLOTS; slot++) {
            total += slots[slot] + previousSlots[slot];
        }
        return new PodHotKeys(pod, total, keys, hot);
    }

    private void roll() {
        long now = nanoTime.getAsLong();
        long elapsed = now - windowStart;
        if (elapsed < WINDOW_NANOS) {
            return;
        }
        // a window with no call at all in between leaves nothing to carry over
        boolean quiet = elapsed >= 2 * WINDOW_NANOS;
        previous = quiet ? Map.of() : current;
        previousSlots = quiet ? new long[SLOTS] : slots;
        current = new HashMap<>();
        heap = new Counter[CAPACITY];
        slots = new long[SLOTS];
        windowStart = now - elapsed % WINDOW_NANOS;
    }
}
