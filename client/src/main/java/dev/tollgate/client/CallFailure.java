package dev.tollgate.client;

import java.net.URI;

/**
 * Why one attempt at one pod failed, as a value carried through the reactive chain (no stack trace: a refused
 * connect is routine while a pod restarts).
 *
 * @param nothingSpent true when the pod surely did not run the check (never connected, or answered that it holds
 *                     no rules), so the next pod may be asked without risk of spending twice
 * @param podDown      true when the failure is the pod's (it refused, dropped or left unanswered the check, or
 *                     answered a server error): the picker marks it down. False when the pod answered as a
 *                     working pod does (a fail-closed rule's store being down is the store's failure, not the pod's)
 */
final class CallFailure extends RuntimeException {

    private final ClientFallback why;
    private final boolean nothingSpent;
    private final boolean podDown;
    private final URI pod;

    CallFailure(ClientFallback why, boolean nothingSpent, boolean podDown, URI pod, Throwable cause) {
        super(why.reason() + ": " + why.detail(), cause, false, false);
        this.why = why;
        this.nothingSpent = nothingSpent;
        this.podDown = podDown;
        this.pod = pod;
    }

    ClientFallback why() {
        return why;
    }

    boolean nothingSpent() {
        return nothingSpent;
    }

    boolean podDown() {
        return podDown;
    }

    URI pod() {
        return pod;
    }
}
