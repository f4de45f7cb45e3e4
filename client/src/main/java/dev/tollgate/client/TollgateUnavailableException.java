package dev.tollgate.client;

/** Tollgate gave no answer in time and the client's fail mode is {@link FailMode#ERROR}. */
public final class TollgateUnavailableException extends RuntimeException {

    private final ClientFallback.Reason reason;

    TollgateUnavailableException(ClientFallback why, Throwable cause) {
        super(why.reason() + ": " + why.detail(), cause);
        this.reason = why.reason();
    }

    public ClientFallback.Reason reason() {
        return reason;
    }
}
