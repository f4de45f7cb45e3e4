package dev.tollgate.bench.load;

/**
 * What one check came back with, as the bench counts it. A fallback answer came from the pod because
 * the store could not be reached in time (fail open); a failure is a check that completed exceptionally
 * or not in time (a timeout in the peers' runs).
 */
public enum Answer {
    ALLOWED, DENIED, FALLBACK_ALLOWED, FALLBACK_DENIED, FAILED;

    public boolean admitted() {
        return this == ALLOWED || this == FALLBACK_ALLOWED;
    }

    public boolean fallback() {
        return this == FALLBACK_ALLOWED || this == FALLBACK_DENIED;
    }
}
