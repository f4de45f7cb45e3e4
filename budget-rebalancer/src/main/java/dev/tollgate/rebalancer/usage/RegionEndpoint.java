package dev.tollgate.rebalancer.usage;

import dev.tollgate.limiter.store.RedisStoreSettings;

/** A region by the name its budget rows carry, and the Redis Cluster its pods report usage to. */
public record RegionEndpoint(String name, RedisStoreSettings redis) {
}
