package dev.tollgate.common.check;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The headers a gateway forwards to its client, after draft-ietf-httpapi-ratelimit-headers (-11, the
 * structured-field syntax): {@code RateLimit-Policy: "growth-global";q=100;w=1},
 * {@code RateLimit: "growth-global";r=42;t=1}, and {@code Retry-After: 3} on a deny. One formatter for
 * the HTTP check and Envoy's gRPC check, so both answer with the same text.
 *
 * <p>They describe one entry, the strictest: on a deny the enforced entry that denied with the longest
 * wait, else any enforced entry; among equals the least left, then the slowest rate, then the latest reset.
 * Shadow entries are never it (their limit is not enforced, so advertising it would throttle clients
 * for nothing), nor unknown rules (they have no limit).
 * A fail-open entry is, with its fallback bucket's figures: that bucket is what admits or denies then.
 *
 * @param policy     {@code RateLimit-Policy}, or null when no enforced entry names its quota
 * @param rateLimit  {@code RateLimit}, or null likewise
 * @param retryAfter {@code Retry-After} in whole seconds, on a deny only; else null
 */
public record RateLimitHeaders(String policy, String rateLimit, String retryAfter) {

    public static final String POLICY = "RateLimit-Policy";
    public static final String RATE_LIMIT = "RateLimit";
    public static final String RETRY_AFTER = "Retry-After";

    public static final RateLimitHeaders NONE = new RateLimitHeaders(null, null, null);

    public static RateLimitHeaders of(Verdict verdict, List<EntryResult> entries) {
        EntryResult strictest = strictest(verdict, entries);
        if (strictest == null) {
            return NONE;
        }
        Long retryAfter = verdict == Verdict.DENY ? retryAfterSeconds(strictest) : null;
        if (strictest.quota() == null || strictest.windowS() == null) {
            return new RateLimitHeaders(null, null, retryAfter == null ? null : retryAfter.toString());
        }
        String name = sfString(strictest.rule());
        String policy = name + ";q=" + strictest.quota() + ";w=" + strictest.windowS();
        long remaining = Math.max(0, strictest.remaining());
        if (retryAfter != null) {
            // the draft: Retry-After should not point before the end of the effective window, so t is the wait itself
            return new RateLimitHeaders(policy, name + ";r=" + remaining + ";t=" + retryAfter, retryAfter.toString());
        }
        return new RateLimitHeaders(policy, name + ";r=" + remaining + ";t=" + ceilSeconds(strictest.resetMs()), null);
    }

    /** The entry the headers describe, or null when none is enforced and known (see the class comment). */
    static EntryResult strictest(Verdict verdict, List<EntryResult> entries) {
        EntryResult strictest = null;
        for (EntryResult entry : entries) {
            if (!advertised(entry) || (verdict == Verdict.DENY && entry.verdict() != Verdict.DENY)) {
                continue;
            }
            if (strictest == null || stricter(verdict, entry, strictest)) {
                strictest = entry;
            }
        }
        return strictest;
    }

    private static boolean advertised(EntryResult entry) {
        return entry.unknownRule() == null && entry.shadow() == null;
    }

    private static boolean stricter(Verdict verdict, EntryResult entry, EntryResult than) {
        if (verdict == Verdict.DENY && retryMs(entry) != retryMs(than)) {
            return retryMs(entry) > retryMs(than);
        }
        if (entry.remaining() != than.remaining()) {
            // a group of one key denies all its entries with one wait: the entry that ran out has the least left
            return entry.remaining() < than.remaining();
        }
        // a deny the pod answered itself (deny cache, local bucket) reports nothing left for each entry of the
        // group: the slower limit is the one that binds
        int slower = slowerRate(entry, than);
        return slower != 0 ? slower < 0 : entry.resetMs() > than.resetMs();
    }

    /** Negative when {@code a} admits less per second than {@code b}; 0 when equal or either is unknown. */
    private static int slowerRate(EntryResult a, EntryResult b) {
        if (a.quota() == null || a.windowS() == null || b.quota() == null || b.windowS() == null) {
            return 0;
        }
        return Long.compare((long) a.quota() * b.windowS(), (long) b.quota() * a.windowS());
    }

    private static long retryMs(EntryResult entry) {
        return entry.retryMs() == null ? entry.resetMs() : entry.retryMs();
    }

    /** A deny always asks for at least a second: {@code Retry-After: 0} would invite the client straight back. */
    private static long retryAfterSeconds(EntryResult denied) {
        return Math.max(1, ceilSeconds(retryMs(denied)));
    }

    private static long ceilSeconds(long ms) {
        return ms <= 0 ? 0 : (ms + 999) / 1000;
    }

    /**
     * An sf-string (RFC 8941, 3.3.3). Rule ids are letters, digits, '.', '_' and '-', which need no
     * escape; the escapes keep the field parseable should a wider id ever reach here.
     */
    static String sfString(String value) {
        StringBuilder out = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c >= 0x20 && c < 0x7f) {
                out.append(c);
            } else {
                out.append('?');
            }
        }
        return out.append('"').toString();
    }

    /** The headers by name, in the order above; empty when there are none. */
    public Map<String, String> asMap() {
        if (policy == null && retryAfter == null) {
            return Map.of();
        }
        Map<String, String> headers = new LinkedHashMap<>(4);
        if (policy != null) {
            headers.put(POLICY, policy);
            headers.put(RATE_LIMIT, rateLimit);
        }
        if (retryAfter != null) {
            headers.put(RETRY_AFTER, retryAfter);
        }
        return Collections.unmodifiableMap(headers);
    }
}
