package dev.tollgate.rules.security;

import jakarta.servlet.http.HttpServletRequest;
import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

import java.util.Arrays;

/** The three scopes, as the authorities Spring Security derives from a JWT's {@code scope} claim. */
final class Scopes {

    static final String ADMIN = "ratelimit:admin";
    static final String READ = "ratelimit:read";
    static final String WATCH = "ratelimit:watch";

    static final String AUTHORITY_PREFIX = "SCOPE_";

    /**
     * The POSTs that only read: a rules-as-code file's diff against the store, and a rule's simulation. Patterns as the
     * router matches them ({@code {id}} is one path segment's text before the colon), so a spelling the router would
     * send elsewhere is not read-scoped here either.
     */
    static final String[] READ_ONLY_POSTS = {"/v1/config:diff", "/v1/rules/{id}:simulate", "/v1/rules:simulate"};
    /**
     * The console's POSTs that only read: a rule's "what if" panels and a key's "why would a check be denied now?" (a
     * pod's explain, which spends nothing), which carry a form (and so its CSRF token) but save nothing. Patterns as the
     * console's router matches them, as for {@link #READ_ONLY_POSTS}.
     */
    static final String[] CONSOLE_READ_ONLY_POSTS = {"/console/rules/{id}/what-if", "/console/rules/{id}/what-if-enforced",
            "/console/key/explain"};
    private static final PathPattern[] READ_ONLY_PATTERNS = Arrays.stream(READ_ONLY_POSTS)
            .map(PathPatternParser.defaultInstance::parse)
            .toArray(PathPattern[]::new);

    private Scopes() {
    }

    private static boolean readOnly(String path) {
        PathContainer container = PathContainer.parsePath(path);
        return Arrays.stream(READ_ONLY_PATTERNS).anyMatch(pattern -> pattern.matches(container));
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
        if ("POST".equals(method) && readOnly(path)) {
            return READ;
        }
        if (path.startsWith("/v1/") && !read) {
            return ADMIN;
        }
        return READ;
    }
}
