package dev.tollgate.rules.console;

import dev.tollgate.rules.hotkeys.FleetTop;

import java.util.List;
import java.util.Locale;

/** What the hot keys page shows of the fleet's merged top: rows ready to print, and what to say when a list is empty. */
record HotKeysPage(String region, long windowS, int podsRegistered, int podsReported, long storeCalls,
                   List<KeyRow> keys, List<SlotRow> slots) {

    record KeyRow(String key, long storeCalls, String share, int pods, int slot) {
    }

    record SlotRow(int slot, long storeCalls, String share) {
    }

    static HotKeysPage of(FleetTop top) {
        return new HotKeysPage(top.region(), top.windowS(), top.podsRegistered(), top.podsReported(), top.storeCalls(),
                top.keys().stream().map(k -> new KeyRow(k.key(), k.storeCalls(), percent(k.share()), k.pods(), k.slot())).toList(),
                top.slots().stream().map(s -> new SlotRow(s.slot(), s.storeCalls(), percent(s.share()))).toList());
    }

    /** Why the lists are empty, or null when they are not: no pod at all, pods that did not report, or a quiet region. */
    public String emptyReason() {
        if (!keys.isEmpty()) {
            return null;
        }
        if (podsRegistered == 0) {
            return "No check-service pod is registered in this region's counter store.";
        }
        if (podsReported == 0) {
            return "None of the " + podsRegistered + " registered pods has published its hot keys in the last 30 s.";
        }
        return "No store calls in the last " + windowS + " s.";
    }

    private static String percent(double share) {
        return String.format(Locale.ROOT, "%.1f %%", share * 100);
    }
}
