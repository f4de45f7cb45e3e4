package dev.tollgate.rules.problem;

/** 503 {@code store_unavailable} with {@code store: counters}: the region's Redis Cluster did not answer a usage read. */
public final class CounterStoreUnavailableException extends RuntimeException {

    public CounterStoreUnavailableException(String message) {
        super(message, null, false, false);
    }
}
