package dev.tollgate.limiter.local;

/**
 * A token bucket in one pod's memory. It is a coarse guard, not the limit of record, so it may use
 * doubles; the time source is the caller's (monotonic nanoseconds), which keeps it testable.
 */
public final class LocalBucket {

    private final double tokensPerNano;
    private final double capacity;
    private double tokens;
    private long lastNanos;

    /**
     * @param tokensPerSecond refill rate
     * @param capacity        burst; the bucket starts full
     */
    public LocalBucket(double tokensPerSecond, double capacity, long nowNanos) {
        if (!(tokensPerSecond > 0) || !(capacity > 0)) {
            throw new IllegalArgumentException("a local bucket needs a positive rate and capacity");
        }
        this.tokensPerNano = tokensPerSecond / 1e9;
        this.capacity = capacity;
        this.tokens = capacity;
        this.lastNanos = nowNanos;
    }

    /** Spends {@code cost} tokens if the bucket holds them; spends nothing otherwise. */
    public synchronized boolean tryConsume(int cost, long nowNanos) {
        refill(nowNanos);
        if (tokens < cost) {
            return false;
        }
        tokens -= cost;
        return true;
    }

    /** Gives back tokens of a spend that a later all-or-nothing step undid. */
    public synchronized void refund(int cost) {
        tokens = Math.min(capacity, tokens + cost);
    }

    public synchronized long available(long nowNanos) {
        refill(nowNanos);
        return (long) Math.floor(tokens);
    }

    /** Nanoseconds until {@code cost} tokens are there again. */
    public synchronized long nanosUntil(int cost, long nowNanos) {
        refill(nowNanos);
        return tokens >= cost ? 0 : (long) Math.ceil((cost - tokens) / tokensPerNano);
    }

    /** How long an empty bucket takes to be full: that long after its last spend it is full, whatever was spent. */
    public long nanosToFill() {
        return (long) Math.ceil(capacity / tokensPerNano);
    }

    /** This bucket at another rate and burst, left as full in proportion as it is now. */
    public synchronized LocalBucket resized(double tokensPerSecond, double newCapacity, long nowNanos) {
        refill(nowNanos);
        LocalBucket resized = new LocalBucket(tokensPerSecond, newCapacity, nowNanos);
        resized.tokens = newCapacity * (tokens / capacity);
        return resized;
    }

    private void refill(long nowNanos) {
        long elapsed = nowNanos - lastNanos;
        if (elapsed > 0) {
            tokens = Math.min(capacity, tokens + elapsed * tokensPerNano);
            lastNanos = nowNanos;
        }
    }
}
