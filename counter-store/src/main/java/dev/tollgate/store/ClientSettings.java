package dev.tollgate.store;

import java.time.Duration;

/**
 * What the store sets on a Lettuce cluster client it is handed (one that Spring Boot built from
 * {@code spring.data.redis.*}, say): where to reach the cluster, credentials, TLS and the connect and
 * handshake timeouts stay the client's; these are the store's own, because a spend depends on them.
 *
 * @param commandTimeout  how long one script may take before it counts as a timeout (design: 5 ms)
 * @param topologyRefresh how often to re-read the slot map even when nothing looks wrong; null keeps the
 *                        client's periodic refresh, or 10 s when it has none
 * @param lanes           a connection per event loop when the client's channels are on the owner's loops (see
 *                        {@link RedisCounterStore#sharedLoops}): for the store of a path whose calls are sent from
 *                        those loops (the checks'), not for one whose calls come from a thread of its own
 */
public record ClientSettings(Duration commandTimeout, Duration topologyRefresh, boolean lanes) {

    static final Duration DEFAULT_TOPOLOGY_REFRESH = Duration.ofSeconds(10);

    public ClientSettings(Duration commandTimeout, Duration topologyRefresh) {
        this(commandTimeout, topologyRefresh, false);
    }

    public ClientSettings {
        if (commandTimeout == null || commandTimeout.isNegative() || commandTimeout.isZero()) {
            throw new IllegalArgumentException("the store's command timeout must be positive, was " + commandTimeout);
        }
        if (topologyRefresh != null && (topologyRefresh.isNegative() || topologyRefresh.isZero())) {
            throw new IllegalArgumentException("the store's topology refresh must be positive, was " + topologyRefresh);
        }
    }

    /** The same, with a connection per event loop (see {@link Lanes}). */
    public ClientSettings withLanes() {
        return new ClientSettings(commandTimeout, topologyRefresh, true);
    }
}
