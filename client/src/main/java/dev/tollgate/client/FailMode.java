package dev.tollgate.client;

/** What the client answers when Tollgate cannot: unreachable, late, or failing with a server error. */
public enum FailMode {
    /** Admit the request (fail open): an outage of the limiter is not an outage of the API. */
    ALLOW,
    /** Refuse the request (fail closed). */
    DENY,
    /** Let the call fail with {@link TollgateUnavailableException}, for a caller that decides itself. */
    ERROR
}
