package dev.tollgate.limiter.usage;

/**
 * Told of every admitted entry, on the request's thread: an implementation must only count in memory
 * and never block (usage reaches Redis later, in batches, off the request path).
 */
@FunctionalInterface
public interface UsageSink {

    UsageSink NONE = (ruleId, key, cost) -> { };

    void admitted(String ruleId, String key, long cost);
}
