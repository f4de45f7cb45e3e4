package dev.tollgate.bench.fleet;

/**
 * The baseline's token bucket: one pod's slice of a limit, in the pod's memory, sharing nothing. It
 * starts full, as a freshly started pod's bucket does (the design's "pod restart" case).
 */
final class PodBucket {

    private final double tokensPerNano;
    private final double capacity;
    private double tokens;
    private long lastNanos;

    PodBucket(double tokensPerSecond, double capacity, long nowNanos) {
        this.tokensPerNano = tokensPerSecond / 1e9;
        this.capacity = capacity;
        this.tokens = capacity;
        this.lastNanos = nowNanos;
    }

    boolean holds(int cost, long nowNanos) {
        long elapsed = nowNanos - lastNanos;
        if (elapsed > 0) {
            tokens = Math.min(capacity, tokens + elapsed * tokensPerNano);
            lastNanos = nowNanos;
        }
        return tokens >= cost;
    }

    void spend(int cost) {
        tokens -= cost;
    }
}
