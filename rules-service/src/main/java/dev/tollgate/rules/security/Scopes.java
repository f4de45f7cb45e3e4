package dev.tollgate.rules.security;

import jakarta.servlet.http.HttpServletRequest;

/** The three scopes, as the authorities Spring Security derives from a JWT's {@code scope} claim. */
final class Scopes {

    static final String ADMIN = "ratelimit:admin";
    static final String READ = "ratelimit:read";
    static final String WATCH = "ratelimit:watch";

    static final String AUTHORITY_PREFIX = "SCOPE_";

    /** The one POST that only reads: a rules-as-code file's diff against the store. */
    static final String READ_ONLY_POST = "/v1/config:diff";

    private Scopes() {
    }

    static String authority(String scope) {
        return AUTHORITY_PREFIX + scope;
    }

    /** The scope a request needs; mirrors the rules in {@link SecurityConfiguration}, to tell a 403's caller what to ask for. */
    static String requiredFor(HttpServletRequest request) {
        String path = request.getRequestURI();
        String method = request.getMethod();
        boolean read = "GET".equals(method) || "HEAD".equals(method);
        if (read && path.equals("/v1/watch")) {
            return WATCH;
        }
        if ("POST".equals(method) && path.equals(READ_ONLY_POST)) {
            return READ;
        }
        if (path.startsWith("/v1/") && !read) {
            return ADMIN;
        }
        return READ;
    }
}
