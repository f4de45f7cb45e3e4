package dev.tollgate.rules.hotkeys;

import dev.tollgate.rules.problem.CounterStoreUnavailableException;
import dev.tollgate.rules.usage.CounterReader;
import dev.tollgate.rules.usage.UsageProperties;
import org.springframework.stereotype.Component;

/**
 * Reads what the region's pods published of their hot keys and merges it: for {@code GET /v1/hot-keys} and the
 * console's page alike. One registry read and one MGET, bounded by the store read's timeout.
 */
@Component
public class FleetHotKeysReader {

    /** The pods' sketches count the window under way and the one before it: 10-20 s. */
    private static final long WINDOW_S = 20;

    private final CounterReader counters;
    private final String region;

    FleetHotKeysReader(CounterReader counters, UsageProperties properties) {
        this.counters = counters;
        this.region = properties.region();
    }

    /**
     * The top {@code limit} keys and slots of the region's pods.
     *
     * @throws CounterStoreUnavailableException when the store is not configured, down or slow (a 503, never a hang)
     */
    public FleetTop read(int limit) {
        return FleetTop.merge(region, WINDOW_S, counters.await(counters.reads().hotKeys(region)), limit);
    }
}
