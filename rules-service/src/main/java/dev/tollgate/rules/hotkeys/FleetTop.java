package dev.tollgate.rules.hotkeys;

import dev.tollgate.store.read.FleetHotKeys;
import dev.tollgate.store.read.PodHotKeys;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The answer of {@code GET /v1/hot-keys}: the pods' tops summed per key and per slot, hottest first, each with its
 * share of every store call the reporting pods made in the span.
 *
 * <p>A key's count is a lower bound of what it took from the fleet: a pod counts it only while it is in that pod's top
 * {@link PodHotKeys#MAX_ENTRIES}, so a key warm on many pods but in none's top is missed. The hottest keys are the
 * ones that matter, and a key above 1/{@value PodHotKeys#MAX_ENTRIES} of a pod's calls is always in its top.
 *
 * @param windowS         the span the pods' counts cover, at most: their sketches' last one or two windows
 * @param podsRegistered  the pods in the region's registry
 * @param podsReported    those whose report is in the store (published in the last 30 s); 0 with empty lists when none
 * @param storeCalls      every store call of the reporting pods in the span, listed or not
 */
public record FleetTop(String region, long windowS, int podsRegistered, int podsReported, long storeCalls,
                List<Key> keys, List<Slot> slots) {

    /**
     * @param pods  how many pods have the key in their top
     * @param error how much the pods' sketches may have over-counted it, summed
     * @param share of the reporting pods' store calls
     */
    public record Key(String key, int slot, long storeCalls, long error, int pods, double share) {
    }

    public record Slot(int slot, long storeCalls, double share) {
    }

    static FleetTop merge(String region, long windowS, FleetHotKeys fleet, int limit) {
        long total = 0;
        Map<String, long[]> keys = new HashMap<>();
        Map<String, Integer> slotOfKey = new HashMap<>();
        Map<Integer, Long> slots = new HashMap<>();
        for (PodHotKeys pod : fleet.reports()) {
            total += pod.calls();
            for (PodHotKeys.Key key : pod.keys()) {
                long[] sum = keys.computeIfAbsent(key.key(), k -> new long[3]);
                sum[0] += key.calls();
                sum[1] += key.error();
                sum[2]++;
                slotOfKey.put(key.key(), key.slot());
            }
            for (PodHotKeys.Slot slot : pod.slots()) {
                slots.merge(slot.slot(), slot.calls(), Long::sum);
            }
        }
        long calls = total;
        List<Key> hotKeys = new ArrayList<>(keys.size());
        keys.forEach((key, sum) -> hotKeys.add(new Key(key, slotOfKey.get(key), sum[0], sum[1], (int) sum[2], share(sum[0], calls))));
        hotKeys.sort(Comparator.comparingLong(Key::storeCalls).reversed().thenComparing(Key::key));
        List<Slot> hotSlots = new ArrayList<>(slots.size());
        slots.forEach((slot, sum) -> hotSlots.add(new Slot(slot, sum, share(sum, calls))));
        hotSlots.sort(Comparator.comparingLong(Slot::storeCalls).reversed().thenComparingInt(Slot::slot));
        return new FleetTop(region, windowS, fleet.registeredPods().size(), fleet.reports().size(), total,
                List.copyOf(hotKeys.subList(0, Math.min(limit, hotKeys.size()))),
                List.copyOf(hotSlots.subList(0, Math.min(limit, hotSlots.size()))));
    }

    private static double share(long calls, long total) {
        return total == 0 ? 0 : Math.min(1.0, (double) calls / total);
    }
}
