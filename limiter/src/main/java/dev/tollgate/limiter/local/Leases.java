package dev.tollgate.limiter.local;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;

import java.time.Duration;
import java.util.Optional;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * Token leases: requests the store granted this pod ahead of time for one set of buckets (an account
 * bucket and a route bucket lease together, at their costs), spent locally for at most {@code ttl}.
 * Leases are pre-paid in the store, so they never overshoot a limit; what they cost is tokens left
 * unspent when a lease expires ("stranded"), which the script bounds by granting at most
 * 1 / (2 × askers) of what a bucket holds, askers being the pods that asked it within the ttl (the bound is
 * stated in docs/optimizations.md), and which is counted here.
 */
public final class Leases {

    /** What is left of one grant. Mutated under its own lock; expires {@code ttl} after the grant. */
    static final class Lease {
        private long requests;
        private final long expiresAtNanos;
        private final long costPerRequest;
        private final long[] remaining;
        private final long[] resetMs;

        Lease(long requests, long expiresAtNanos, long costPerRequest, long[] remaining, long[] resetMs) {
            this.requests = requests;
            this.expiresAtNanos = expiresAtNanos;
            this.costPerRequest = costPerRequest;
            this.remaining = remaining;
            this.resetMs = resetMs;
        }
    }

    /**
     * One request's worth taken from a lease: what the store said of each bucket at the grant, and the
     * requests still left on the lease after this one.
     */
    public record Taken(long[] remaining, long[] resetMs, long left) {
    }

    private final Cache<String, Lease> leases;
    private final Duration ttl;
    private final LongSupplier nanoTime;
    private final LongConsumer stranded;

    /**
     * @param stranded told the tokens of every lease that expired or was evicted unspent
     */
    public Leases(Duration ttl, int maxLeases, LongSupplier nanoTime, LongConsumer stranded) {
        this.ttl = ttl;
        this.nanoTime = nanoTime;
        this.stranded = stranded;
        this.leases = Caffeine.newBuilder()
                .maximumSize(maxLeases)
                .expireAfterWrite(ttl.multipliedBy(2))
                .executor(Runnable::run)
                .removalListener((String id, Lease lease, RemovalCause cause) -> {
                    if (lease != null && cause != RemovalCause.REPLACED && cause != RemovalCause.EXPLICIT) {
                        strand(lease);
                    }
                })
                .build();
    }

    /** Spends one request from the set's lease; empty when there is none left or it expired. */
    public Optional<Taken> take(String set) {
        Lease lease = leases.getIfPresent(set);
        if (lease == null) {
            return Optional.empty();
        }
        synchronized (lease) {
            if (nanoTime.getAsLong() >= lease.expiresAtNanos) {
                if (leases.asMap().remove(set, lease)) {
                    strand(lease);
                }
                return Optional.empty();
            }
            if (lease.requests <= 0) {
                return Optional.empty();
            }
            lease.requests--;
            return Optional.of(new Taken(lease.remaining, lease.resetMs, lease.requests));
        }
    }

    /**
     * Keeps the unspent part of a grant. {@code costPerRequest} is the tokens one request takes from
     * the set's buckets in total, for the stranded count. A grant that arrives while the pod still holds
     * a lease for the set (two calls raced) joins it: both are paid for, and dropping either would
     * strand its tokens; the joined lease lasts {@code ttl} from the newer grant.
     */
    /** Requests left on the set's live lease (0 when it has none), taking none. */
    public long left(String set) {
        Lease lease = leases.getIfPresent(set);
        if (lease == null) {
            return 0;
        }
        synchronized (lease) {
            return nanoTime.getAsLong() < lease.expiresAtNanos ? Math.max(0, lease.requests) : 0;
        }
    }

    public void keep(String set, long requests, long costPerRequest, long[] remaining, long[] resetMs) {
        if (requests <= 0) {
            return;
        }
        long now = nanoTime.getAsLong();
        leases.asMap().compute(set, (id, old) -> {
            long joined = requests;
            if (old != null) {
                synchronized (old) {
                    if (now < old.expiresAtNanos) {
                        joined += old.requests;
                    } else if (old.requests > 0) {
                        stranded.accept(old.requests * old.costPerRequest);
                    }
                    old.requests = 0;
                }
            }
            return new Lease(joined, now + ttl.toNanos(), costPerRequest, remaining.clone(), resetMs.clone());
        });
    }

    /**
     * Puts one request back on the set's lease, when a check that took it (or whose store call granted
     * the lease) was denied by another of its limits. False when the set holds no live lease: the caller
     * gives the tokens back to the store instead.
     */
    public boolean giveBack(String set) {
        Lease lease = leases.getIfPresent(set);
        if (lease == null) {
            return false;
        }
        synchronized (lease) {
            if (nanoTime.getAsLong() >= lease.expiresAtNanos) {
                return false;
            }
            lease.requests++;
            return true;
        }
    }

    private void strand(Lease lease) {
        long left;
        synchronized (lease) {
            left = lease.requests;
            lease.requests = 0;
        }
        if (left > 0) {
            stranded.accept(left * lease.costPerRequest);
        }
    }
}
