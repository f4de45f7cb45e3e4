package dev.tollgate.client;

import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.common.check.RateLimitHeaders;
import dev.tollgate.common.check.Verdict;

import java.net.URI;

/**
 * The answer to one check: Tollgate's, or the client's own when Tollgate could not give one.
 *
 * @param verdict  what to do with the request
 * @param response Tollgate's answer as it sent it; null for a client fallback
 * @param headers  the headers of Tollgate's answer to forward to the caller ({@code RateLimit-Policy}, {@code RateLimit},
 *                 {@code Retry-After} on a deny), as sent; {@link RateLimitHeaders#NONE} for a client fallback
 * @param fallback why the client answered instead of Tollgate; null when Tollgate answered
 * @param pod      the pod that answered, or the last one tried; null when no pod was known
 */
public record CheckResult(Verdict verdict, CheckResponse response, RateLimitHeaders headers, ClientFallback fallback, URI pod) {

    static CheckResult answered(CheckResponse response, RateLimitHeaders headers, URI pod) {
        return new CheckResult(response.verdict(), response, headers, null, pod);
    }

    static CheckResult fallback(Verdict verdict, ClientFallback why, URI pod) {
        return new CheckResult(verdict, null, RateLimitHeaders.NONE, why, pod);
    }

    public boolean allowed() {
        return verdict == Verdict.ALLOW;
    }

    /** True when the client answered by its fail mode (or a fail-closed rule's deny) because Tollgate could not. */
    public boolean isFallback() {
        return fallback != null;
    }
}
