package dev.tollgate.rules.problem;

/** The {@code code} member of every problem rules-service answers: stable, for machines to branch on. */
public final class ProblemCodes {

    public static final String BAD_REQUEST = "bad_request";
    public static final String UNAUTHORIZED = "unauthorized";
    public static final String FORBIDDEN = "forbidden";
    public static final String NOT_FOUND = "not_found";
    public static final String METHOD_NOT_ALLOWED = "method_not_allowed";
    public static final String NOT_ACCEPTABLE = "not_acceptable";
    public static final String VERSION_CONFLICT = "version_conflict";
    public static final String PAYLOAD_TOO_LARGE = "payload_too_large";
    public static final String UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type";
    public static final String INVALID_RULE = "invalid_rule";
    public static final String INVALID_DESCRIPTORS = "invalid_descriptors";
    /** An envoyproxy/ratelimit configuration file that is not YAML, or that envoyproxy/ratelimit itself would refuse. */
    public static final String INVALID_ENVOY_CONFIG = "invalid_envoy_config";
    /** A rules-as-code file (POST /v1/config:apply) whose content cannot be served: every problem is listed. */
    public static final String INVALID_CONFIG = "invalid_config";
    /** An import whose rules are stored already, under the same ids, with other values. */
    public static final String IMPORT_CONFLICT = "import_conflict";
    /** A rule with a canary changes by its promote or rollback only. */
    public static final String CANARY_PENDING = "canary_pending";
    /** A promote, rollback or read of a canary the rule does not have. */
    public static final String NO_CANARY = "no_canary";
    public static final String PRECONDITION_REQUIRED = "precondition_required";
    public static final String INTERNAL_ERROR = "internal_error";
    public static final String STORE_UNAVAILABLE = "store_unavailable";
    /** A write rolled back by a deadlock or serialization failure with another writer: retry it. */
    public static final String STORE_BUSY = "store_busy";
    public static final String ANSWER_TOO_LARGE = "answer_too_large";
    /** Tomcat refuses any HTTP version but 1.0, 1.1 and 2 before the request reaches the service. */
    public static final String HTTP_VERSION_NOT_SUPPORTED = "http_version_not_supported";

    private ProblemCodes() {
    }

    static String forStatus(int status) {
        return switch (status) {
            case 400 -> BAD_REQUEST;
            case 401 -> UNAUTHORIZED;
            case 403 -> FORBIDDEN;
            case 404 -> NOT_FOUND;
            case 405 -> METHOD_NOT_ALLOWED;
            case 406 -> NOT_ACCEPTABLE;
            case 409 -> VERSION_CONFLICT;
            case 413 -> PAYLOAD_TOO_LARGE;
            case 415 -> UNSUPPORTED_MEDIA_TYPE;
            case 422 -> INVALID_RULE;
            case 428 -> PRECONDITION_REQUIRED;
            case 503 -> STORE_UNAVAILABLE;
            case 505 -> HTTP_VERSION_NOT_SUPPORTED;
            default -> status >= 500 ? INTERNAL_ERROR : BAD_REQUEST;
        };
    }
}
