package dev.tollgate.common.check;

/**
 * The {@code code} member of every problem the check's API answers: stable, for machines to branch on. The
 * service writes them and the client reads them from this one list.
 */
public final class ProblemCodes {

    public static final String BAD_REQUEST = "bad_request";
    public static final String UNAUTHORIZED = "unauthorized";
    /** A caller known, or a port open, but not for this: explain without a reader's token configured. */
    public static final String FORBIDDEN = "forbidden";
    public static final String INVALID_REQUEST = "invalid_request";
    public static final String REQUEST_TIMEOUT = "request_timeout";
    public static final String PAYLOAD_TOO_LARGE = "payload_too_large";
    public static final String URI_TOO_LONG = "uri_too_long";
    public static final String HEADERS_TOO_LARGE = "headers_too_large";
    public static final String UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type";
    public static final String NOT_ACCEPTABLE = "not_acceptable";
    public static final String METHOD_NOT_ALLOWED = "method_not_allowed";
    public static final String NOT_FOUND = "not_found";
    /** A forward-auth deny: the request is over a limit (the check by body answers a deny as a 200 verdict instead). */
    public static final String RATE_LIMITED = "rate_limited";
    /** A fail-closed rule's shard did not answer in time: the request is denied. */
    public static final String STORE_TIMEOUT = "store_timeout";
    /** A fail-closed rule's shard cannot be reached (breaker open, node refused): the request is denied. */
    public static final String STORE_UNAVAILABLE = "store_unavailable";
    /** The pod holds no rules yet and spent nothing: the caller's own failure mode decides. */
    public static final String RULES_UNAVAILABLE = "rules_unavailable";
    public static final String INTERNAL_ERROR = "internal_error";

    private ProblemCodes() {
    }

    /** Whether the code says a fail-closed rule denied the request because its shard could not answer. */
    public static boolean failedClosed(String code) {
        return STORE_TIMEOUT.equals(code) || STORE_UNAVAILABLE.equals(code);
    }
}
