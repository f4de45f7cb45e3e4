package dev.tollgate.store;

/**
 * The counter store did not answer a script: it timed out, or it is unreachable or refused us. Cheap
 * to create (no stack trace), since under an outage every check on the shard raises one.
 */
public final class StoreException extends RuntimeException {

    public enum Kind {
        /** No reply within the store timeout: the spend may or may not have been applied. */
        TIMEOUT,
        /** Not sent or refused (connection down, breaker open, auth or ACL denied): nothing was spent. */
        UNAVAILABLE
    }

    private final Kind kind;
    private final String reason;

    public StoreException(Kind kind, String message, Throwable cause) {
        this(kind, kind.name().toLowerCase(), message, cause);
    }

    /**
     * @param reason a short, bounded word for metrics and alerts: {@code timeout}, {@code unavailable} (no
     *               connection, or a node that cannot serve now: CLUSTERDOWN, LOADING, ...), {@code access_denied},
     *               {@code script_error} (an error the script raised), {@code breaker_open}, {@code not_connected}
     */
    public StoreException(Kind kind, String reason, String message, Throwable cause) {
        super(message, cause, false, false);
        this.kind = kind;
        this.reason = reason;
    }

    public Kind kind() {
        return kind;
    }

    public String reason() {
        return reason;
    }

    /**
     * An error that one key's script raised (WRONGTYPE, a script runtime error, OOM on a write), as
     * opposed to the shard failing us. It says nothing about the shard's health, so it must not open
     * the shard's breaker: one bad key would otherwise send every key on the shard to fallback.
     */
    public boolean isKeyError() {
        String message = getMessage();
        return "script_error".equals(reason) && message != null
                && (message.contains("WRONGTYPE") || message.contains("user_script"));
    }
}
