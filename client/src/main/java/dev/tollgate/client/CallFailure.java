package dev.tollgate.client;

/**
 * Why one attempt at one pod failed, as a value carried through the reactive chain (no stack trace: a refused
 * connect is routine while a pod restarts).
 *
 * @param nothingSpent true when the pod surely did not run the check (never connected, or answered that it holds
 *                     no rules), so the next pod may be asked without risk of spending twice
 */
final class CallFailure extends RuntimeException {

    private final ClientFallback why;
    private final boolean nothingSpent;

    CallFailure(ClientFallback why, boolean nothingSpent, Throwable cause) {
        super(why.reason() + ": " + why.detail(), cause, false, false);
        this.why = why;
        this.nothingSpent = nothingSpent;
    }

    ClientFallback why() {
        return why;
    }

    boolean nothingSpent() {
        return nothingSpent;
    }
}
