package dev.tollgate.store.script;

/**
 * The pod that asks for a lease, as the spend script counts a bucket's askers: its id (one field per pod on the
 * bucket's hash) and how long its leases live, the window within which a pod that asked still counts. A lease
 * then takes at most 1 / (2 × askers) of what a bucket holds, not 1 / (2 × the fleet).
 */
public record LeaseAsker(String podId, long ttlMs) {

    public LeaseAsker {
        if (podId == null || podId.isBlank()) {
            throw new IllegalArgumentException("a lease asker needs a pod id");
        }
        if (ttlMs < 1) {
            throw new IllegalArgumentException("a lease asker's ttl must be at least 1 ms, was " + ttlMs);
        }
    }
}
