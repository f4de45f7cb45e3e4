package dev.tollgate.limiter;

import java.time.Duration;

/**
 * The design's "Optimizations", each switchable for comparison and for safety. Off, every check is
 * one exact script call; on, most checks are answered by the pod.
 *
 * @param localFirst a coarse bucket per key in the pod, in front of every global check, so a flood
 *                   is cut on the pods. Sized at the key's full rate and burst, so it never binds below
 *                   the global limit even for a client pinned to one pod
 * @param leases     ask the store for up to {@code leaseWant} requests at once and spend them locally
 *                   for at most {@code leaseTtl}; the script shrinks the grant to 1 near the limit
 * @param denyCache  after a deny with retry, deny the key locally until then
 */
public record Optimizations(boolean localFirst, boolean leases, boolean denyCache, int leaseWant, Duration leaseTtl) {

    /** A pod holds at most this many requests of one key on a lease. */
    public static final int MAX_LEASE_WANT = 10_000;
    public static final Optimizations NONE = new Optimizations(false, false, false, 1, Duration.ofSeconds(1));
    public static final Optimizations ALL = new Optimizations(true, true, true, 50, Duration.ofSeconds(1));

    public Optimizations {
        if (leaseWant < 1 || leaseWant > MAX_LEASE_WANT) {
            throw new IllegalArgumentException("Optimizations.leaseWant must be between 1 and " + MAX_LEASE_WANT + ", was " + leaseWant);
        }
        if (leaseTtl == null || leaseTtl.isNegative() || leaseTtl.isZero()) {
            throw new IllegalArgumentException("Optimizations.leaseTtl must be positive, was " + leaseTtl);
        }
    }
}
