package dev.tollgate.check.api;

/** The {@code code} member of every problem check-service answers: stable, for machines to branch on. */
final class ProblemCodes {

    static final String BAD_REQUEST = "bad_request";
    static final String UNAUTHORIZED = "unauthorized";
    static final String INVALID_REQUEST = "invalid_request";
    static final String REQUEST_TIMEOUT = "request_timeout";
    static final String PAYLOAD_TOO_LARGE = "payload_too_large";
    static final String URI_TOO_LONG = "uri_too_long";
    static final String HEADERS_TOO_LARGE = "headers_too_large";
    static final String UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type";
    static final String NOT_ACCEPTABLE = "not_acceptable";
    static final String METHOD_NOT_ALLOWED = "method_not_allowed";
    static final String NOT_FOUND = "not_found";
    static final String STORE_TIMEOUT = "store_timeout";
    static final String STORE_UNAVAILABLE = "store_unavailable";
    static final String RULES_UNAVAILABLE = "rules_unavailable";
    static final String INTERNAL_ERROR = "internal_error";

    private ProblemCodes() {
    }

    static String forStatus(int status) {
        return switch (status) {
            case 400 -> BAD_REQUEST;
            case 401 -> UNAUTHORIZED;
            case 404 -> NOT_FOUND;
            case 405 -> METHOD_NOT_ALLOWED;
            case 406 -> NOT_ACCEPTABLE;
            case 408 -> REQUEST_TIMEOUT;
            case 413 -> PAYLOAD_TOO_LARGE;
            case 414 -> URI_TOO_LONG;
            case 415 -> UNSUPPORTED_MEDIA_TYPE;
            case 422 -> INVALID_REQUEST;
            case 431 -> HEADERS_TOO_LARGE;
            case 503 -> STORE_UNAVAILABLE;
            case 504 -> STORE_TIMEOUT;
            default -> status >= 500 ? INTERNAL_ERROR : BAD_REQUEST;
        };
    }
}
