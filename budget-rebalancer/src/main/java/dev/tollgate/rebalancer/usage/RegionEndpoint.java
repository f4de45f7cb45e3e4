package dev.tollgate.rebalancer.usage;

import dev.tollgate.store.read.CounterReads;

/** A region by the name its budget rows carry, and the counter store its pods report usage to. */
public record RegionEndpoint(String name, CounterReads store) {
}
