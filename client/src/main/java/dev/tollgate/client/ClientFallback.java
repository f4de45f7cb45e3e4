package dev.tollgate.client;

/**
 * Why a {@link CheckResult} came from the client and not from Tollgate.
 *
 * @param reason what went wrong
 * @param detail the failure's own words (an exception's message, a problem's {@code code}), for logs
 */
public record ClientFallback(Reason reason, String detail) {

    public enum Reason {
        /** No pod could be connected to (refused, connect timeout). */
        UNREACHABLE,
        /** The pod source knows no pod (a headless Service with no ready pod, a DNS name that does not resolve). */
        NO_PODS,
        /** No answer within the call's deadline. */
        DEADLINE,
        /** The connection broke after the check was sent, or a pod answered something that is not a check answer. */
        BROKEN_ANSWER,
        /** A pod answered a server error other than a fail-closed rule's (500, or 503 {@code rules_unavailable}). */
        SERVER_ERROR,
        /**
         * Tollgate answered, but a fail-closed rule's shard could not be reached (503 {@code store_unavailable}, 504
         * {@code store_timeout}): the rule itself says deny, whatever the client's fail mode.
         */
        CLOSED_RULE_UNAVAILABLE
    }
}
