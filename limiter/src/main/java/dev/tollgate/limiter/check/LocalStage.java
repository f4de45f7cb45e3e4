package dev.tollgate.limiter.check;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.tollgate.common.check.EntryResult;
import dev.tollgate.store.script.GroupReply;
import dev.tollgate.store.script.LeaseAsker;
import dev.tollgate.store.script.Spend;
import dev.tollgate.limiter.Explanation;
import dev.tollgate.limiter.Optimizations;
import dev.tollgate.limiter.local.DenyCache;
import dev.tollgate.limiter.local.Leases;
import dev.tollgate.limiter.local.LocalBuckets;
import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.store.StoreException;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * The check's first stage: what a pod answers for a key group before, or instead of, a store call, in the
 * order the design gives: the deny cache ("remember the no"), the coarse local-first bucket, then a token
 * lease; else how many requests to ask the store for ({@link #want}). Each answer is switched by
 * {@link Optimizations}; with all off every group goes to the store. What the store answered (or failed to)
 * comes back once per store call, through {@link #learn} or {@link #failed}.
 *
 * <p>Its caches (and those of the deny cache, the local buckets and the leases) do their upkeep on the
 * thread that uses them ({@code executor(Runnable::run)}): by default Caffeine hands it to the common
 * pool, a thread woken (futex) for every burst of writes, 6% of the pod's CPU at 4,500 checks/s.
 */
final class LocalStage {

    private static final Duration MAX_DENY_MEMORY = Duration.ofSeconds(1);
    private static final Duration LOCAL_BUCKET_IDLE = Duration.ofMinutes(2);
    /** How long a lease set asks for one request only after a lease call timed out (its grant, if any, never reached the pod). */
    private static final Duration AFTER_LOST_GRANT = Duration.ofSeconds(5);
    private static final int MAX_KEYS = 200_000;

    private final Optimizations optimizations;
    private final DenyCache denies;
    private final LocalBuckets localBuckets;
    private final Leases leases;
    /** Lease sets whose last lease call timed out: its grant, if the store made one, never reached us. */
    private final Cache<String, Boolean> lostGrants;
    private final LimiterMetrics metrics;
    private final LeaseAsker asker;

    /** @param podId this pod's id, by which the store counts the pods that ask for a key's leases */
    LocalStage(Optimizations optimizations, LongSupplier nanoTime, LimiterMetrics metrics, String podId) {
        this.optimizations = optimizations;
        this.metrics = metrics;
        this.asker = new LeaseAsker(podId, optimizations.leaseTtl().toMillis());
        this.denies = new DenyCache(MAX_DENY_MEMORY, MAX_KEYS, nanoTime);
        this.localBuckets = new LocalBuckets(LOCAL_BUCKET_IDLE, MAX_KEYS, nanoTime);
        this.leases = new Leases(optimizations.leaseTtl(), MAX_KEYS, nanoTime, metrics::leaseStranded);
        this.lostGrants = Caffeine.newBuilder().maximumSize(MAX_KEYS).expireAfterWrite(AFTER_LOST_GRANT)
                .executor(Runnable::run).build();
    }

    /** The group's answer from the pod alone (deny cache, local-first bucket, then a lease), unless the store must decide. */
    Optional<GroupAnswer> answer(KeyGroup group) {
        Optional<GroupAnswer> screened = screen(group);
        return screened.isPresent() ? screened : fromLease(group);
    }

    /** The deny cache and the local-first bucket: the answers that only ever deny. */
    private Optional<GroupAnswer> screen(KeyGroup group) {
        List<Spend> spends = group.spends();
        if (optimizations.denyCache()) {
            long retry = remembered(group);
            if (retry > 0) {
                metrics.denyCacheHit();
                countByRule(group, "deny_cache");
                return Optional.of(GroupAnswer.of(group, i -> EntryResult.denied(group.rule(i).id(), 0, retry, retry)));
            }
        }
        if (optimizations.localFirst() && group.answeredLocally()) {
            long retry = localBuckets.trySpend(group.key(), spends);
            if (retry > 0) {
                metrics.localDrop();
                countByRule(group, "local_drop");
                return Optional.of(GroupAnswer.of(group, i -> EntryResult.denied(group.rule(i).id(), 0, retry, retry)));
            }
        }
        return Optional.empty();
    }

    /** What the pod would answer for a group, told without spending or counting anything: explain's view of this stage. */
    record Look(Explanation.Stage stage, boolean allowed, String why) {
    }

    /** What {@link #answer} would answer now, taking nothing: no token, no lease, no metric. */
    Optional<Look> look(KeyGroup group) {
        List<Spend> spends = group.spends();
        if (optimizations.denyCache()) {
            long remembered = remembered(group);
            if (remembered > 0) {
                return Optional.of(new Look(Explanation.Stage.DENY_CACHE, false,
                        "the pod remembers the store's deny of this key and denies without asking it: retry in " + remembered + " ms"));
            }
        }
        if (optimizations.localFirst() && group.answeredLocally()) {
            long wait = localBuckets.wouldWaitMs(group.key(), spends);
            if (wait > 0) {
                return Optional.of(new Look(Explanation.Stage.LOCAL_BUCKET, false,
                        "the pod's local-first bucket for this key is empty: it denies without asking the store, for " + wait + " ms"));
            }
        }
        if (optimizations.leases() && group.answeredLocally()) {
            long left = leases.left(group.leaseSet());
            if (left > 0) {
                return Optional.of(new Look(Explanation.Stage.LEASE, true,
                        "the pod holds a lease of " + left + " more requests of this cost for this key, paid in the store ahead"));
            }
        }
        return Optional.empty();
    }

    /** The longest wait the deny cache remembers for the group's limits; 0 when it remembers none. */
    private long remembered(KeyGroup group) {
        long remembered = 0;
        for (Spend spend : group.spends()) {
            // a look asks about one more request: a limit that could not pay 1 cannot answer it yes
            remembered = Math.max(remembered, denies.retryMs(spend.rule().id(), group.key(), Math.max(1, spend.cost())));
        }
        return remembered;
    }

    /** One request's worth from the set's lease, if the pod holds one. */
    Optional<GroupAnswer> fromLease(KeyGroup group) {
        if (!optimizations.leases() || !group.answeredLocally()) {
            return Optional.empty();
        }
        Optional<Leases.Taken> taken = leases.take(group.leaseSet());
        if (taken.isEmpty()) {
            return Optional.empty();
        }
        metrics.leaseHit();
        countByRule(group, "lease");
        List<Spend> spends = group.spends();
        Leases.Taken lease = taken.get();
        return Optional.of(GroupAnswer.of(group, i -> EntryResult.allowed(group.rule(i).id(),
                podView(lease.remaining()[i], lease.left(), spends.get(i).cost()), lease.resetMs()[i]), Spent.ON_LEASE));
    }

    /**
     * Puts one request back on the group's lease; false when it has none live (leases off, or expired: an
     * expired lease keeps it, and the lease's tokens are counted as stranded when it goes).
     */
    boolean giveBackToLease(KeyGroup group) {
        return optimizations.leases() && group.answeredLocally() && leases.giveBack(group.leaseSet());
    }

    /** Requests to ask the store for: a lease for token buckets, one otherwise or after a lost grant. */
    int want(KeyGroup group) {
        if (!optimizations.leases() || !group.answeredLocally()) {
            return 1;
        }
        return lostGrants.getIfPresent(group.leaseSet()) != null ? 1 : optimizations.leaseWant();
    }

    /**
     * Who asks, for the store's count of a bucket's askers: this pod, whose leases live the lease ttl. The store
     * sizes a lease by the pods that asked the bucket within that ttl rather than by the whole fleet.
     */
    LeaseAsker asker() {
        return asker;
    }

    /**
     * Learns from the store's answer: keeps the rest of a lease, remembers the limits that cannot pay for
     * this pod's next request (a deny, or a grant of the last token) for as long as the store said to hold
     * off, and gives the local-first bucket back what a denied request took from it.
     */
    void learn(KeyGroup group, GroupReply reply) {
        if (!reply.allowed()) {
            refund(group);
        }
        if (optimizations.leases() && group.answeredLocally()) {
            lostGrants.invalidate(group.leaseSet());
            if (reply.allowed() && reply.granted() > 1) {
                long costPerRequest = group.spends().stream().mapToLong(Spend::cost).sum();
                leases.keep(group.leaseSet(), reply.granted() - 1, costPerRequest, reply.remaining(), reply.resetMs());
            }
        }
        if (optimizations.denyCache() && reply.holdMs() > 0) {
            List<Spend> spends = group.spends();
            for (int i = 0; i < spends.size(); i++) {
                Spend spend = spends.get(i);
                if (reply.remaining()[i] < spend.cost()) {
                    // trusted for the store's hold (pods denied before this one are due the next tokens), and the
                    // client told the store's wait for this cost
                    denies.deny(spend.rule().id(), group.key(), spend.cost(), reply.holdMs(), reply.retryMs());
                }
            }
        }
    }

    /**
     * The store did not answer. A lease call that timed out may have been granted all the same: those
     * tokens are gone from the store and the pod never learns of them, so the set asks for a single
     * request until a call of its comes back, and the loss is counted.
     */
    void failed(KeyGroup group, StoreException error) {
        if (error.kind() == StoreException.Kind.TIMEOUT && want(group) > 1) {
            lostGrants.put(group.leaseSet(), Boolean.TRUE);
            metrics.leaseLostOnTimeout();
        }
    }

    /** Gives the local-first bucket back what a request took from it when the request was not admitted after all. */
    void refund(KeyGroup group) {
        if (optimizations.localFirst() && group.answeredLocally()) {
            localBuckets.refund(group.key(), group.spends());
        }
    }

    /**
     * What is left of a bucket as this pod sees it: the store's count plus what the pod still holds on
     * its lease, so a client reads the same {@code remaining} with leases on as off.
     */
    static long podView(long storeRemaining, long leaseLeft, int cost) {
        return storeRemaining + leaseLeft * cost;
    }

    /** The group's lease set when it is leased. */
    Optional<String> leaseSet(KeyGroup group) {
        return optimizations.leases() && group.answeredLocally() ? Optional.of(group.leaseSet()) : Optional.empty();
    }

    private void countByRule(KeyGroup group, String answer) {
        for (int i = 0; i < group.size(); i++) {
            metrics.localAnswer(group.rule(i), answer);
        }
    }
}
