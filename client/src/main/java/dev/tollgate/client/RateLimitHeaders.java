package dev.tollgate.client;

import java.util.OptionalLong;

/**
 * The headers of Tollgate's answer that a gateway forwards to its caller, as sent (null when absent):
 * {@code RateLimit-Policy} and {@code RateLimit} (draft-ietf-httpapi-ratelimit-headers) for the strictest
 * entry, and {@code Retry-After} on a deny. A client fallback carries none.
 */
public record RateLimitHeaders(String rateLimit, String rateLimitPolicy, String retryAfter) {

    public static final String RATE_LIMIT = "RateLimit";
    public static final String RATE_LIMIT_POLICY = "RateLimit-Policy";
    public static final String RETRY_AFTER = "Retry-After";

    static final RateLimitHeaders NONE = new RateLimitHeaders(null, null, null);

    public boolean isEmpty() {
        return rateLimit == null && rateLimitPolicy == null && retryAfter == null;
    }

    /** {@code Retry-After} in whole seconds when it is given as such (Tollgate never sends an HTTP date). */
    public OptionalLong retryAfterSeconds() {
        if (retryAfter == null) {
            return OptionalLong.empty();
        }
        try {
            long seconds = Long.parseLong(retryAfter.trim());
            return seconds < 0 ? OptionalLong.empty() : OptionalLong.of(seconds);
        } catch (NumberFormatException notSeconds) {
            return OptionalLong.empty();
        }
    }
}
