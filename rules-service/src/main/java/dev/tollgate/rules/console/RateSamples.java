package dev.tollgate.rules.console;

import dev.tollgate.rules.usage.RecentUsage;
import org.springframework.stereotype.Component;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The past a chart needs beyond what Redis holds: Redis keeps a usage window for 30 s, a chart shows
 * three minutes, so every read of a key's windows is remembered here, per window start. A closed window
 * read again replaces its earlier (partial) value. Bounded: {@value #KEYS} keys, least recently viewed
 * dropped first, {@value #WINDOWS} windows each. Memory of this instance only; a restart starts the
 * charts afresh.
 */
@Component
class RateSamples {

    static final int KEYS = 256;
    static final int WINDOWS = 18;

    private final Map<String, TreeMap<Long, Map<String, Double>>> byKey = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, TreeMap<Long, Map<String, Double>>> eldest) {
            return size() > KEYS;
        }
    };

    /** Adds the windows just read (costs per window, the newest still open) and answers the key's rates so far, oldest first. */
    synchronized SortedMap<Long, Map<String, Double>> record(String key, RecentUsage.Series series, long windowSeconds) {
        TreeMap<Long, Map<String, Double>> windows = byKey.computeIfAbsent(key, k -> new TreeMap<>());
        List<Long> starts = series.starts();
        for (int i = 0; i < starts.size(); i++) {
            boolean open = i == starts.size() - 1;
            double seconds = open ? series.openSeconds() : windowSeconds;
            Map<String, Double> rates = new HashMap<>();
            for (Map.Entry<String, List<Long>> rule : series.costs().entrySet()) {
                rates.put(rule.getKey(), rule.getValue().get(i) / seconds);
            }
            windows.put(starts.get(i), rates);
        }
        // windows with no reading in between (the page was closed) are shown as no traffic, not interpolated
        long newest = windows.lastKey();
        for (long start = newest - (long) (WINDOWS - 1) * windowSeconds; start < newest; start += windowSeconds) {
            if (start >= windows.firstKey()) {
                windows.putIfAbsent(start, Map.of());
            }
        }
        while (windows.size() > WINDOWS) {
            windows.pollFirstEntry();
        }
        return new TreeMap<>(windows);
    }
}
