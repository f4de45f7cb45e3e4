package dev.tollgate.bench.fleet;

import dev.tollgate.limiter.metrics.LimiterMetrics;

/**
 * How a fleet's engines answered without the store, from their own metrics: token-lease hits, deny-cache
 * hits, local-first bucket drops, and lease tokens stranded at expiry. A snapshot; subtract two to get a
 * measured window.
 */
public record LocalAnswers(double leaseHits, double denyCacheHits, double localDrops, double strandedTokens) {

    public static LocalAnswers of(Fleet fleet) {
        return new LocalAnswers(fleet.counter(LimiterMetrics.LEASE_HITS), fleet.counter(LimiterMetrics.DENY_CACHE_HITS),
                fleet.counter(LimiterMetrics.LOCAL_DROPS), fleet.counter(LimiterMetrics.LEASE_STRANDED));
    }

    public LocalAnswers minus(LocalAnswers earlier) {
        return new LocalAnswers(leaseHits - earlier.leaseHits, denyCacheHits - earlier.denyCacheHits,
                localDrops - earlier.localDrops, strandedTokens - earlier.strandedTokens);
    }
}
