package dev.tollgate.common.check;

import java.util.List;
import java.util.Map;

/**
 * The answer: the strictest entry's verdict, then each entry in request order, then the RateLimit
 * headers a gateway forwards to its client ({@link RateLimitHeaders}), by name, for gateways that
 * build their own response. check-service sends the same values as HTTP headers of its answer.
 */
public record CheckResponse(Verdict verdict, List<EntryResult> entries, Map<String, String> headers) {

    public CheckResponse {
        entries = entries == null ? List.of() : List.copyOf(entries);
        headers = headers == null ? Map.of() : headers;
    }

    public static CheckResponse of(List<EntryResult> entries) {
        Verdict verdict = Verdict.ALLOW;
        for (EntryResult entry : entries) {
            verdict = verdict.and(entry.effectiveVerdict());
        }
        return new CheckResponse(verdict, entries, RateLimitHeaders.of(verdict, entries).asMap());
    }

    public boolean allowed() {
        return verdict == Verdict.ALLOW;
    }
}
