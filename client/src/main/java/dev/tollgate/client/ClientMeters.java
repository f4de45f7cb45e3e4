package dev.tollgate.client;

/**
 * What the client tells its meters, one call per check. An interface without Micrometer's types, so that the client
 * runs without Micrometer on the classpath: {@link #NONE} then, and {@link MicrometerClientMeters} (the only class
 * that names Micrometer) is never loaded.
 */
interface ClientMeters {

    ClientMeters NONE = (outcome, reason, nanos) -> {
    };

    /** One check ended; outcome and reason are {@link ClientMetrics}'s tag values. */
    void checked(String outcome, String reason, long nanos);

    default void close() {
    }
}
