package dev.tollgate.limiter;

import dev.tollgate.common.check.EntryResult;
import dev.tollgate.common.check.Verdict;
import dev.tollgate.common.rule.Algorithm;
import dev.tollgate.limiter.algorithm.GroupReply;
import dev.tollgate.limiter.algorithm.Spend;
import dev.tollgate.limiter.local.DenyCache;
import dev.tollgate.limiter.local.Leases;
import dev.tollgate.limiter.local.LocalBuckets;
import dev.tollgate.limiter.metrics.LimiterMetrics;

import java.time.Duration;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * What a pod answers for a key group before, or instead of, a store call, in the order the design
 * gives: the deny cache ("remember the no"), the coarse local-first bucket, then a token lease. Each
 * answer is switched by {@link Optimizations}; with all off every group goes to the store.
 */
final class LocalAnswers {

    private static final Duration MAX_DENY_MEMORY = Duration.ofSeconds(1);
    private static final Duration LOCAL_BUCKET_IDLE = Duration.ofMinutes(2);
    private static final int MAX_KEYS = 200_000;

    private final Optimizations optimizations;
    private final DenyCache denies;
    private final LocalBuckets localBuckets;
    private final Leases leases;
    private final LimiterMetrics metrics;

    LocalAnswers(Optimizations optimizations, LongSupplier nanoTime, LimiterMetrics metrics) {
        this.optimizations = optimizations;
        this.metrics = metrics;
        this.denies = new DenyCache(MAX_DENY_MEMORY, MAX_KEYS, nanoTime);
        this.localBuckets = new LocalBuckets(LOCAL_BUCKET_IDLE, MAX_KEYS, nanoTime);
        this.leases = new Leases(optimizations.leaseTtl(), MAX_KEYS, nanoTime, metrics::leaseStranded);
    }

    /**
     * Answers the group locally into {@code results} (deny cache, local-first bucket, then a lease), or
     * returns false when the store must decide.
     */
    boolean answer(KeyGroup group, EntryResult[] results) {
        return screen(group, results) || fromLease(group, results);
    }

    /** The deny cache and the local-first bucket: the answers that only ever deny. */
    private boolean screen(KeyGroup group, EntryResult[] results) {
        if (optimizations.denyCache()) {
            long remembered = 0;
            for (int i = 0; i < group.size(); i++) {
                remembered = Math.max(remembered, denies.remainingMs(group.rule(i).id(), group.key()));
            }
            long retry = remembered;
            if (retry > 0) {
                metrics.denyCacheHit();
                fill(group, results, i -> EntryResult.denied(group.rule(i).id(), 0, retry, retry));
                return true;
            }
        }
        if (!isBucketGroup(group)) {
            return false;
        }
        if (optimizations.localFirst()) {
            long retry = localBuckets.trySpend(group.key(), group.spends());
            if (retry > 0) {
                metrics.localDrop();
                fill(group, results, i -> EntryResult.denied(group.rule(i).id(), 0, retry, retry));
                return true;
            }
        }
        return false;
    }

    /** One request's worth from the set's lease, if the pod holds one. */
    boolean fromLease(KeyGroup group, EntryResult[] results) {
        if (optimizations.leases() && isBucketGroup(group)) {
            Leases.Taken taken = leases.take(group.leaseSet());
            if (taken != null) {
                metrics.leaseHit();
                List<Spend> spends = group.spends();
                fill(group, results, i -> EntryResult.allowed(group.rule(i).id(),
                        podView(taken.remaining()[i], taken.left(), spends.get(i).cost()), taken.resetMs()[i]));
                return true;
            }
        }
        return false;
    }

    /** Requests to ask the store for: a lease for token buckets, one otherwise. */
    int want(KeyGroup group) {
        return optimizations.leases() && isBucketGroup(group) ? optimizations.leaseWant() : 1;
    }

    /**
     * Learns from the store's answer: keeps the rest of a lease, remembers the limits that cannot pay for
     * this pod's next request (a deny, or a grant of the last token) for as long as the store said to hold
     * off, and gives the local-first bucket back what a denied request took from it.
     */
    void learn(KeyGroup group, GroupReply reply) {
        if (!reply.allowed() && optimizations.localFirst() && isBucketGroup(group)) {
            localBuckets.refund(group.key(), group.spends());
        }
        if (reply.allowed() && reply.granted() > 1 && optimizations.leases()) {
            long costPerRequest = group.spends().stream().mapToLong(Spend::cost).sum();
            leases.keep(group.leaseSet(), reply.granted() - 1, costPerRequest, reply.remaining(), reply.resetMs());
        }
        if (optimizations.denyCache() && reply.holdMs() > 0) {
            List<Spend> spends = group.spends();
            for (int i = 0; i < spends.size(); i++) {
                if (reply.remaining()[i] < spends.get(i).cost()) {
                    // the store's hold, not its retry: pods denied before this one are due the next tokens
                    denies.deny(spends.get(i).rule().id(), group.key(), reply.holdMs());
                }
            }
        }
    }

    /**
     * What is left of a bucket as this pod sees it: the store's count plus what the pod still holds on
     * its lease, so a client reads the same {@code remaining} with leases on as off.
     */
    static long podView(long storeRemaining, long leaseLeft, int cost) {
        return storeRemaining + leaseLeft * cost;
    }

    private static boolean isBucketGroup(KeyGroup group) {
        return group.id().algorithm() == Algorithm.TOKEN_BUCKET;
    }

    /** The group's lease set when it is leased, else null. */
    String leaseSet(KeyGroup group) {
        return optimizations.leases() && isBucketGroup(group) ? group.leaseSet() : null;
    }

    private interface Result {
        EntryResult at(int i);
    }

    private void fill(KeyGroup group, EntryResult[] results, Result result) {
        for (int i = 0; i < group.size(); i++) {
            EntryResult entry = group.shadow() ? result.at(i).asShadow() : result.at(i);
            metrics.decided(entry.rule(), entry.verdict());
            if (group.shadow() && entry.verdict() == Verdict.DENY) {
                metrics.shadowDenied(entry.rule());
            }
            for (int index : group.entryIndexes(i)) {
                results[index] = entry;
            }
        }
    }
}
